import { beforeAll, describe, expect, it } from 'vitest';
import { t } from '../../web/i18n/index.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

const ar = (key: Parameters<typeof t>[1]) => t('ar', key);

describe('locale negotiation over HTTP', () => {
  const stack = useTestStack();
  let cartId: string;
  beforeAll(async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Negotiating Store' });
    cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
  });
  const page = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.checkoutUrl}/?token=${cartId}${query}`, { headers });
    return { res, body: await res.text() };
  };

  it('Accept-Language: ar gets the Arabic page, right to left', async () => {
    const { res, body } = await page('', { 'Accept-Language': 'ar' });
    expect(res.headers.get('content-language')).toBe('ar');
    expect(body).toContain('<html lang="ar" dir="rtl">');
    expect(body).toContain(ar('contact.heading'));
  });

  it('English by default, for an unsupported language, and for a better-ranked English', async () => {
    for (const header of [undefined, 'fr-FR, de;q=0.8', 'en;q=0.9, ar;q=0.1']) {
      const { body } = await page('', header ? { 'Accept-Language': header } : {});
      expect(body, header).toContain('<html lang="en" dir="ltr">');
      expect(body).toContain('Confirm it&#39;s you');
    }
  });

  it('?lang= beats the cookie, which beats Accept-Language; ?lang= sets the cookie', async () => {
    const hinted = await page('&lang=ar', { 'Accept-Language': 'en', Cookie: 'checkout_lang=en' });
    expect(hinted.body).toContain('<html lang="ar" dir="rtl">');
    expect(hinted.res.headers.get('set-cookie')).toMatch(/checkout_lang=ar;/);
    expect((await page('', { 'Accept-Language': 'en', Cookie: 'checkout_lang=ar' })).body).toContain('<html lang="ar" dir="rtl">');
    expect((await page('&lang=xx', { Cookie: 'checkout_lang=zz' })).body).toContain('<html lang="en" dir="ltr">');
  });

  it('translates the 404 page', async () => {
    const res = await fetch(`${stack.checkoutUrl}/?token=${'0'.repeat(32)}&lang=ar`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain(ar('notFound.title'));
  });
});
