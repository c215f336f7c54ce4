import { beforeAll, describe, expect, it } from 'vitest';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

describe('the checkout page names the registered merchant when the store name differs', () => {
  const stack = useTestStack();
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Demo Store Ltd' })).platformUuid;
  });

  async function page(storeName: string, merchant = platformUuid): Promise<{ cartId: string; html: string }> {
    const body = validCartRequest(merchant);
    body.cartObject.store.name = storeName;
    const cartId = await createCartId(stack.apiUrl, body);
    const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(res.status).toBe(200);
    return { cartId, html: await res.text() };
  }

  const soldBy = (html: string) => html.match(/<p class="merchant-seller"[^>]*>(.*?)<\/p>/s)?.[1];

  it('shows the request’s store name with the registered name beside it, taken from the ledger row', async () => {
    const { cartId, html } = await page('Demo Shop');
    expect(html).toContain('<span class="merchant-name">Demo Shop</span>');
    expect(soldBy(html)).toBe('Sold by <strong>Demo Store Ltd</strong>');
    expect(await stack.db`select merchant_name from carts where cart_id = ${cartId}`).toEqual([{ merchant_name: 'Demo Store Ltd' }]);
  });

  it('adds nothing when the names differ only in case or spacing', async () => {
    expect(soldBy((await page('Demo Store Ltd')).html)).toBeUndefined();
    expect(soldBy((await page('  demo  STORE ltd')).html)).toBeUndefined();
  });

  it('shows the registered name beside a look-alike written with other letters (Cyrillic е)', async () => {
    expect(soldBy((await page('D\u0435mo Store Ltd')).html)).toBe('Sold by <strong>Demo Store Ltd</strong>');
  });

  it('escapes both names', async () => {
    const hostile = await stack.createMerchant({ name: '<img src=x onerror=alert(1)> & Co' });
    const { html } = await page('<script>alert("store")</script>', hostile.platformUuid);
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<script>alert');
    expect(soldBy(html)).toBe('Sold by <strong>&lt;img src=x onerror=alert(1)&gt; &amp; Co</strong>');
    expect(html).toContain('&lt;script&gt;alert(&quot;store&quot;)&lt;/script&gt;');
  });
});
