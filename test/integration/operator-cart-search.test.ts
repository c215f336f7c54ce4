import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { cartSessionDriver, type Session } from '../support/cart-session-driver.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { useTestStack } from '../support/test-stack.js';

/** The carts a search page lists, in its order. */
const listed = (body: string) => [...body.matchAll(/<td><code>([A-Za-z0-9_-]{24})<\/code><\/td>/g)].map((m) => m[1]);

describe("the operator dashboard's cart search", () => {
  const stack = useTestStack({ TRUST_PROXY: '1' });
  let shop: CreatedMerchant;
  let other: CreatedMerchant;
  let untouched: Session;
  let asked: Session;
  let paid: Session;
  let cancelled: Session;
  let old: Session;
  let operator: ReturnType<typeof dashboardClient>;

  beforeAll(async () => {
    shop = await stack.createMerchant({ name: 'Search <Shop>' });
    other = await stack.createMerchant({ name: 'Other Shop' });
    const driver = cartSessionDriver(stack, shop.platformUuid);
    untouched = await driver.createSession();
    asked = await driver.createSession();
    await driver.sendCode(asked);
    paid = await driver.verifiedSession();
    expect((await driver.pay(paid, SANDBOX_CARDS.approved)).status).toBe('paid');
    cancelled = await driver.createSession();
    await driver.cancel(cancelled);
    old = await cartSessionDriver(stack, other.platformUuid).createSession();
    // A cart from another day, for the date range: the only way to have one without waiting.
    await stack.db`update carts set created_at = '2020-01-15T10:00:00Z' where cart_id = ${old.cartId}`;
    operator = dashboardClient(stack.checkoutUrl);
    expect((await operator.signInAsOperator(stack.config.operatorToken!)).status).toBe(303);
  }, 60_000);

  const search = async (query: Record<string, string>) => {
    const page = await operator.get(`/dashboard/operator/carts?${new URLSearchParams(query).toString()}`);
    return { ...page, carts: listed(page.body) };
  };

  it('finds a merchant’s carts, newest first, each linked to its workflow in the Temporal UI', async () => {
    const found = await search({ merchant: shop.platformUuid });
    expect(found.status).toBe(200);
    expect(found.carts).toEqual([cancelled.cartId, paid.cartId, asked.cartId, untouched.cartId]);
    expect(found.body).toContain('Search &lt;Shop&gt;');
    expect(found.body).not.toContain('Search <Shop>');
    expect(found.body).toContain(`href="${stack.config.temporalUiUrl}/namespaces/default/workflows/cart-${paid.cartId}"`);
    expect(found.body).toContain('method="get" action="/dashboard/operator/carts"');
  });

  it('narrows by status and by step, as the ledger records them', async () => {
    expect((await search({ merchant: shop.platformUuid, status: 'paid' })).carts).toEqual([paid.cartId]);
    expect((await search({ merchant: shop.platformUuid, status: 'pending' })).carts).toEqual([asked.cartId, untouched.cartId]);
    expect((await search({ merchant: shop.platformUuid, step: 'not_started' })).carts).toEqual([untouched.cartId]);
    expect((await search({ merchant: shop.platformUuid, step: 'in_checkout' })).carts).toEqual([asked.cartId]);
    expect((await search({ merchant: shop.platformUuid, step: 'done' })).carts).toEqual([cancelled.cartId, paid.cartId]);
    expect((await search({ merchant: shop.platformUuid, step: 'processing' })).carts).toEqual([]);
    expect((await search({ merchant: shop.platformUuid, step: 'done', status: 'pending' })).carts).toEqual([]);
  });

  it('finds one cart by its ID across merchants, and carts by creation dates (UTC days, both inclusive)', async () => {
    expect((await search({ cartId: old.cartId })).carts).toEqual([old.cartId]);
    expect((await search({ from: '2020-01-15', to: '2020-01-15' })).carts).toEqual([old.cartId]);
    expect((await search({ from: '2020-01-16', to: '2020-01-16' })).carts).toEqual([]);
    const recent = (await search({ from: new Date().toISOString().slice(0, 10) })).carts;
    expect(recent).toEqual(expect.arrayContaining([untouched.cartId, paid.cartId]));
    expect(recent).not.toContain(old.cartId);
    expect((await search({ merchant: other.platformUuid, from: '2020-01-01', to: '2020-12-31' })).carts).toEqual([old.cartId]);
  });

  it('answers a bad field 422 naming it and the fix, and lists nothing', async () => {
    for (const [query, field, says] of [
      [{ status: 'bogus' }, 'status', 'Choose a status from the list'],
      [{ step: 'code' }, 'step', 'Choose a step from the list'],
      [{ merchant: '00000000-0000-4000-8000-000000000000' }, 'merchant', 'Choose a merchant from the list'],
      [{ from: '15/01/2020' }, 'from', 'Enter a date, such as 2030-01-31'],
      [{ cartId: "x' or 1=1" }, 'cartId', 'A cart ID is 24 letters'],
    ] as const) {
      const found = await search(query);
      expect(found.status, field).toBe(422);
      expect(found.carts).toEqual([]);
      expect(found.body).toContain(`aria-describedby="search-${field}-error"`);
      expect(found.body).toContain(says);
    }
  });

  it('is for operators only', async () => {
    const merchant = dashboardClient(stack.checkoutUrl);
    expect((await merchant.signIn(shop.apiKey)).status).toBe(303);
    expect((await merchant.get('/dashboard/operator/carts')).location).toBe('/dashboard/sign-in/operator');
    expect((await dashboardClient(stack.checkoutUrl).get('/dashboard/operator/carts')).location).toBe('/dashboard/sign-in/operator');
  });
});
