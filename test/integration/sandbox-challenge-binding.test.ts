import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { threeDSecureReturnUrl } from '../../core/checkout/three-d-secure.js';
import { cartWorkflowId, stateQuery } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The sandbox challenge page answers one cart's challenge through that cart's signed return link:
 * another cart's payment posted with it must neither be answered nor use the link up.
 */
describe('the sandbox 3-D Secure challenge, bound to its cart', () => {
  // The bank's return link is built from CHECKOUT_BASE_URL: it must lead to this page.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true });

  /** A cart paid with the challenge card, its customer sent to the challenge page: the page's link, as the processor gave it. */
  async function cartAtChallenge(platformUuid: string) {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields);
    expect((await post('/contact', { contact: 'jane.doe@example.com' })).status).toBe(303);
    expect((await post('/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    expect((await post('/card', { number: SANDBOX_CARDS.challenge, expiry: '12/30', cvv: '123' })).status).toBe(303);
    const challenge = await waitFor(
      async () => {
        const status = await fetch(`${stack.checkoutUrl}/status?token=${cartId}`, { redirect: 'manual', headers: { cookie: visit.cookie } });
        const location = status.headers.get('location');
        return status.status === 303 && location?.includes('/3ds/sandbox-challenge') ? new URL(location, stack.checkoutUrl) : undefined;
      },
      { what: `the redirect of ${cartId} to the 3-D Secure challenge` },
    );
    return {
      cartId,
      challengeUrl: challenge.toString(),
      path: challenge.pathname,
      payment: challenge.searchParams.get('payment')!,
      returnUrl: challenge.searchParams.get('return')!,
    };
  }

  const answer = (path: string, payment: string, returnUrl: string) =>
    fetch(`${stack.checkoutUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.checkoutUrl },
      body: new URLSearchParams({ payment, return: returnUrl, result: 'authenticated' }),
    });
  const authenticationResult = async (cartId: string) =>
    (await stack.db<{ result: string | null }[]>`select result from sandbox_authentications where idempotency_key = ${cartId}`)[0]?.result;
  const step = async (cartId: string) => (await stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).query(stateQuery)).step;

  it("refuses cart B's payment with cart A's return link, by GET and POST; B still waits and A's return still completes A", async () => {
    const { platformUuid } = await stack.createMerchant();
    const [a, b] = await Promise.all([cartAtChallenge(platformUuid), cartAtChallenge(platformUuid)]);

    const shown = await fetch(`${stack.checkoutUrl}${a.path}?${new URLSearchParams({ payment: b.payment, return: a.returnUrl })}`);
    expect(shown.status, "the challenge page for B's payment with A's return link").toBe(404);
    const crossed = await answer(a.path, b.payment, a.returnUrl);
    expect(crossed.status, "the answer to B's payment with A's return link").toBe(404);
    expect(await authenticationResult(b.cartId)).toBeNull();
    expect(await step(b.cartId)).toBe('authenticating');

    const answered = await answer(a.path, a.payment, a.returnUrl);
    expect(answered.status).toBe(303);
    expect(answered.headers.get('location')).toBe(a.returnUrl);
    const back = await fetch(a.returnUrl, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`https://store.example/success?cartId=${a.cartId}`);
    const [ledger] = await stack.db<{ status: string; three_d_secure: string }[]>`select status, three_d_secure from carts where cart_id = ${a.cartId}`;
    expect(ledger).toEqual({ status: 'paid', three_d_secure: 'authenticated' });
    expect(await authenticationResult(b.cartId)).toBeNull();
    expect(await step(b.cartId)).toBe('authenticating');
  });

  it('gives the bank a return link that does not carry the cartId, the same link on every attempt, which still completes the cart', async () => {
    const { platformUuid } = await stack.createMerchant();
    const a = await cartAtChallenge(platformUuid);
    // What the processor and the bank are given (and keep): no cartId, the checkout page's bearer token.
    expect(a.returnUrl).not.toContain(a.cartId);
    expect(a.challengeUrl).not.toContain(a.cartId);
    expect(a.challengeUrl).not.toContain(a.cartId.replaceAll('-', ''));
    // The worker's charge sends it as the payment's return_url under the cartId's idempotency key: a
    // retried charge must send the same one.
    expect(threeDSecureReturnUrl(stack.config, a.cartId)).toBe(a.returnUrl);

    expect((await answer(a.path, a.payment, a.returnUrl)).status).toBe(303);
    const back = await fetch(a.returnUrl, { redirect: 'manual' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`https://store.example/success?cartId=${a.cartId}`);
  });
});
