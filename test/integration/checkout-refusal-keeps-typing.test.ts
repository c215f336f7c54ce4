import { beforeAll, describe, expect, it } from 'vitest';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * The action guard's refusals (web/checkout/action.ts: the CSRF refusal, the 503 of an unavailable
 * dependency) show back what the customer typed. The CSRF cookie lives 2 hours (web/checkout/render.ts)
 * while a session may live up to 24: a customer who opened the page earlier and comes back to it meets
 * the refusal on their first post, and need not type their contact again.
 */
describe('a refused contact post keeps what the customer typed', () => {
  const stack = useTestStack();
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Typed Store' })).platformUuid;
  });

  it('shows the typed contact back after the CSRF cookie expired', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    const page = await visitCheckout(stack.checkoutUrl, cartId);
    const typed = 'hurried.customer@example.com';
    // The browser dropped the expired checkout_csrf cookie (maxAge 2 h): the form's token no longer matches.
    const res = await postCheckoutForm(stack.checkoutUrl, '/contact', cartId, { ...page, cookie: '' }, { contact: typed });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain('For your security this form expired');
    const value = html.match(/<input\s+id="contact"[^>]*?value="([^"]*)"/)?.[1];
    expect(value).toBe(typed);
  });
});
