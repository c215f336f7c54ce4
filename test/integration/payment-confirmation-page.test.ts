import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { recordedEvents } from '../support/cart-session-driver.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

describe('the page while a payment outcome is unknown', () => {
  // The processor-error card never answers and its lookups find nothing: the outcome stays unknown
  // for PAYMENT_RESOLUTION_SECONDS, far longer than the page holds the customer. The Pay post's own
  // wait for the outcome is cut short, well inside the confirmation wait, which leaves a loaded
  // machine the time of the post and the first status read (over 2 s with two test runs side by side).
  const stack = useTestStack({ PAYMENT_CONFIRMATION_WAIT_SECONDS: '5', PAYMENT_RESOLUTION_SECONDS: '10', PAY_OUTCOME_WAIT_MS: '100' });

  it('confirms, then past its wait tells the customer the outcome will follow, then sends them back once it is known', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields);
    expect((await post('/contact', { contact: 'jane.doe@example.com' })).status).toBe(303);
    expect((await post('/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    const paid = await post('/card', { number: SANDBOX_CARDS.processorError, expiry: '12/30', cvv: '123' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`/status?token=${cartId}`);

    const status = () => fetch(`${stack.checkoutUrl}/status?token=${cartId}`, { redirect: 'manual', headers: { cookie: visit.cookie } });
    const first = await status();
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('Confirming your payment');

    const failureUrl = `https://store.example/failure?cartId=${cartId}`;
    const overdue = await waitFor(
      async () => {
        const html = await (await status()).text();
        return html.includes('We are still waiting for your bank') ? html : undefined;
      },
      { what: 'the page to stop holding the customer' },
    );
    expect(overdue).toContain('will not be charged twice');
    expect(overdue).toContain(`href="${failureUrl.replace('&', '&amp;')}"`);
    expect(overdue).not.toContain('Confirming your payment');
    // Still unknown, so nothing final has been said to the merchant yet.
    expect((await recordedEvents(stack, cartId)).map((e) => e.status)).toEqual(['processing']);

    const back = await waitFor(
      async () => {
        const res = await status();
        return res.status === 303 ? res : undefined;
      },
      { what: 'the outcome', timeoutMs: 20_000 },
    );
    expect(back.headers.get('location')).toBe(failureUrl);
    // The merchant still gets the final word, by webhook (recorded just after the ledger turns final).
    const events = await waitFor(
      async () => {
        const recorded = await recordedEvents(stack, cartId);
        return recorded.length === 2 ? recorded : undefined;
      },
      { what: 'the final event' },
    );
    expect(events.map((e) => [e.status, e.failureCode])).toEqual([
      ['processing', undefined],
      ['failed', 'processor_error'],
    ]);
  });
});
