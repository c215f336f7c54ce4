import { beforeAll, describe, expect, it } from 'vitest';
import { t } from '../../web/i18n/index.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';

const ar = (key: Parameters<typeof t>[1]) => t('ar', key);

describe('locale negotiation over HTTP', () => {
  const stack = useTestStack();
  let cartId: string;
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Negotiating Store' })).platformUuid;
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

  it('English for an Irish cart by default, for an unsupported language, and for a better-ranked English', async () => {
    for (const header of [undefined, 'ja-JP, zh;q=0.8', 'en;q=0.9, ar;q=0.1']) {
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

  describe('the cart country, when the customer names no language we speak', () => {
    const cartFrom = async (country: string) => {
      const body = validCartRequest(platformUuid);
      body.cartObject.cart.country = country;
      return createCartId(stack.apiUrl, body);
    };
    const lang = async (id: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${stack.checkoutUrl}/?token=${id}`, { headers });
      const body = await res.text();
      return { header: res.headers.get('content-language'), html: /<html lang="([a-z]+)"/.exec(body)?.[1] };
    };

    it.each([
      ['FR', 'fr'],
      ['BE', 'fr'],
      ['ES', 'es'],
      ['MX', 'es'],
      ['DE', 'de'],
      ['AUT', 'de'],
      ['CH', 'de'],
      ['AE', 'ar'],
      ['EGY', 'ar'],
      ['JP', 'en'],
    ])('a %s cart is shown in %s', async (country, expected) => {
      const id = await cartFrom(country);
      expect(await lang(id, { 'Accept-Language': 'ja-JP, zh;q=0.8' })).toEqual({ header: expected, html: expected });
    });

    it('never beats what the customer asked for: Accept-Language, the cookie, ?lang=', async () => {
      const id = await cartFrom('FR');
      expect(await lang(id, { 'Accept-Language': 'en-GB' })).toEqual({ header: 'en', html: 'en' });
      expect(await lang(id, { Cookie: 'checkout_lang=de' })).toEqual({ header: 'de', html: 'de' });
      expect((await lang(id, {})).html).toBe('fr');
      const hinted = await fetch(`${stack.checkoutUrl}/?token=${id}&lang=es`);
      expect(/<html lang="([a-z]+)"/.exec(await hinted.text())?.[1]).toBe('es');
    });

    it('speaks French on the next step too, and in the form post answers', async () => {
      const id = await cartFrom('FR');
      const visit = await visitCheckout(stack.checkoutUrl, id);
      expect(visit.html).toContain(t('fr', 'contact.submit'));
      const res = await postCheckoutForm(stack.checkoutUrl, '/contact', id, visit, { contact: 'not a contact' }, { 'HX-Request': 'true' });
      expect(res.status).toBe(422);
      expect(await res.text()).toContain(t('fr', 'error.contactInvalid').replaceAll("'", '&#39;'));
    });
  });
});
