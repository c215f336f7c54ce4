import { html } from 'hono/html';
import type { Html } from './layout.js';
import { t } from '../../i18n/index.js';
import type { StepView } from './step-view.js';

/**
 * The page answers a load at this step with a redirect to the bank's challenge (web/checkout/page-load.ts);
 * this panel is what an htmx swap shows meanwhile, with a plain link that works without JavaScript.
 */
export function authenticatingStep(view: StepView): Html {
  const redirectUrl = view.session.state.authentication?.redirectUrl;
  return html`<h2>${t(view.locale, 'threeDSecure.heading')}</h2>
    <p class="lead">${t(view.locale, 'threeDSecure.lead')}</p>
    ${redirectUrl ? html`<a class="button-link" href="${redirectUrl}">${t(view.locale, 'threeDSecure.continue')}</a>` : ''}`;
}

/**
 * Polls until the payment has an outcome; the answer that finds it done redirects the customer. While
 * the processor has not answered the workflow keeps asking it (up to PAYMENT_RESOLUTION_SECONDS), so
 * the page says it is confirming, not failing: an unknown outcome is never a decline.
 */
export function processingStep(view: StepView): Html {
  const statusUrl = `/status?token=${view.session.cartId}`;
  if (view.stillConfirming) {
    const store = view.session.store.name;
    return html`<div class="processing" hx-get="${statusUrl}" hx-trigger="every 10s" hx-target="#step" hx-swap="outerHTML">
      <h2>${t(view.locale, 'stillWaiting.heading')}</h2>
      <p class="lead">${t(view.locale, 'stillWaiting.lead', { store })}</p>
      <p><a href="${view.stillConfirming.returnUrl}">${t(view.locale, 'common.returnTo', { store })}</a></p>
    </div>`;
  }
  return html`<div class="processing" hx-get="${statusUrl}" hx-trigger="every 1s" hx-target="#step" hx-swap="outerHTML">
    <span class="spinner" aria-hidden="true"></span>
    <h2>${t(view.locale, 'processing.heading')}</h2>
    <p class="lead">${t(view.locale, 'processing.lead')}</p>
    <noscript
      ><p><a href="${statusUrl}">${t(view.locale, 'processing.checkStatus')}</a></p></noscript
    >
  </div>`;
}
