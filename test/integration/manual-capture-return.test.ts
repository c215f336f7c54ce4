import { describe, expect, it } from 'vitest';
import { postCheckoutForm, visitCheckout, type Visit } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * A manual-capture cart ends the customer's part at `authorized` (the card held, nothing charged): the
 * customer goes back to the merchant's successUrl with the cartId, exactly as after a paid one, whether
 * the page was driven by plain form posts (303) or by htmx (HX-Redirect), and the status page agrees.
 */
describe('the way back to the merchant after a manual-capture authorization', () => {
  const stack = useTestStack();

  async function authorizedCheckout(headers: Record<string, string>): Promise<{ cartId: string; visit: Visit; pay: Response }> {
    const { platformUuid } = await stack.createMerchant({ name: 'Ships Later' });
    const body = validCartRequest(platformUuid);
    body.cartObject.cart.captureMethod = 'manual';
    body.cartObject.cart.merchantUrls = { successUrl: 'https://store.example/success?ref=abc', failureUrl: 'https://store.example/failure' };
    const cartId = await createCartId(stack.apiUrl, body);
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields, headers);
    expect((await post('/contact', { contact: 'customer@example.com' })).status).toBeLessThan(400);
    expect((await post('/code', { code: '123456' })).status).toBeLessThan(400);
    const pay = await post('/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' });
    const [row] = await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`;
    expect(row?.status).toBe('authorized');
    return { cartId, visit, pay };
  }

  it('without JavaScript: the Pay post answers 303 to successUrl with the cartId, and so does the status page', async () => {
    const { cartId, visit, pay } = await authorizedCheckout({});
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`https://store.example/success?ref=abc&cartId=${cartId}`);

    const status = await fetch(`${stack.checkoutUrl}/status?token=${cartId}`, { redirect: 'manual', headers: { cookie: visit.cookie } });
    expect(status.status).toBe(303);
    expect(status.headers.get('location')).toBe(`https://store.example/success?ref=abc&cartId=${cartId}`);

    // The link itself is used up, as after a paid checkout: it takes no second payment.
    const again = await fetch(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This checkout has already been used');
  });

  it('with htmx: the Pay post answers HX-Redirect to successUrl with the cartId, and so does the status poll', async () => {
    const { cartId, visit, pay } = await authorizedCheckout({ 'HX-Request': 'true' });
    expect(pay.status).toBe(200);
    expect(pay.headers.get('hx-redirect')).toBe(`https://store.example/success?ref=abc&cartId=${cartId}`);

    const poll = await fetch(`${stack.checkoutUrl}/status?token=${cartId}`, { redirect: 'manual', headers: { cookie: visit.cookie, 'HX-Request': 'true' } });
    expect(poll.status).toBe(200);
    expect(poll.headers.get('hx-redirect')).toBe(`https://store.example/success?ref=abc&cartId=${cartId}`);
  });
});
