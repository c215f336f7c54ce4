import { html } from 'hono/html';
import { layout, type Html } from './layout.js';
import { stepPanel, type StepView } from './steps.js';
import { orderSummary } from './summary.js';

/**
 * The whole hosted page: the order on one side, the current step and the session clock on the other.
 * Landmarks at the top level: the merchant's header (with the page's one h1), the order summary
 * (aside), the step (main) and the footer; the two wrappers are only the columns of the layout.
 */
export function checkoutPage(view: StepView): Html {
  const { session } = view;
  const processing = session.state.step === 'processing';
  return layout({
    title: `Pay ${session.store.name}`,
    refreshTo: processing ? `/status?token=${session.cartId}` : undefined,
    body: html`<div class="checkout">
      <div class="summary">${orderSummary(session, { sandbox: view.sandbox !== undefined })}</div>
      <div class="payment-column">
        <main class="payment">${processing ? '' : countdown(session.state.expiresOn)} ${stepPanel(view)}</main>
        <footer class="footer">
          <span class="lock" aria-hidden="true"></span><span>Payments are encrypted. Your card details are never shared with ${session.store.name}.</span>
        </footer>
      </div>
    </div>`,
  });
}

/**
 * The clock the customer pays against; /assets/checkout.js ticks it and reloads the page at zero. The
 * per-second clock is hidden from screen readers (it would be read out every second, or be stale);
 * they get the polite summary instead, which checkout.js rewrites only as the time left passes 30,
 * 15, 10, 5, 2 and 1 minutes.
 */
function countdown(expiresOn: string): Html {
  const secondsLeft = Math.max(0, Math.floor((Date.parse(expiresOn) - Date.now()) / 1000));
  const clock = `${Math.floor(secondsLeft / 60)}:${String(secondsLeft % 60).padStart(2, '0')}`;
  const at = new Date(expiresOn).toISOString().slice(11, 16);
  const minutes = Math.ceil(secondsLeft / 60);
  return html`<p class="countdown" data-expires-at="${expiresOn}">
    <span aria-hidden="true">Session expires in</span> <time datetime="${expiresOn}" class="countdown-clock" aria-hidden="true">${clock}</time>
    <span class="countdown-at" aria-hidden="true">(at ${at} UTC)</span>
    <span class="countdown-summary visually-hidden" role="status" aria-live="polite"
      >This session expires in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}, at ${at} UTC.</span
    >
  </p>`;
}
