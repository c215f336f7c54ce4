import { html } from 'hono/html';
import type { CheckoutSession } from '../load-session.js';
import type { Html } from './layout.js';
import type { CheckoutStep } from '../../../core/checkout/session.js';

export type FieldName = 'contact' | 'code' | 'number' | 'expiry' | 'cvv';

/** What one rendering of the step panel needs besides the session. */
export interface StepView {
  session: CheckoutSession;
  csrf: string;
  sandbox: { otp: string } | undefined;
  errors?: Partial<Record<FieldName | 'form', string>>;
  notice?: string;
  /** Typed values worth keeping on an error; never the card number or the CVV. */
  values?: { contact?: string; expiry?: string };
  /**
   * Set once a payment has waited longer than PAYMENT_CONFIRMATION_WAIT_SECONDS for its outcome: the
   * page stops holding the customer and says the outcome will follow, with the way back to the store.
   */
  stillConfirming?: { returnUrl: string };
}

const STEP_ORDER: CheckoutStep[] = ['contact', 'code', 'card'];
const STEP_LABELS = { contact: 'Contact', code: 'Code', card: 'Card' } as const;

/** The part of the page that changes as the customer moves on; htmx swaps it in place. */
export function stepPanel(view: StepView): Html {
  const { step } = view.session.state;
  return html`<section id="step" class="panel step" aria-live="polite" data-step="${step}">
    ${step === 'processing' ? '' : progress(step)} ${view.errors?.form ? html`<p class="alert" role="alert">${view.errors.form}</p>` : ''}
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''} ${stepBody(view)}
  </section>`;
}

function stepBody(view: StepView): Html {
  switch (view.session.state.step) {
    case 'contact':
      return contactStep(view);
    case 'code':
      return codeStep(view);
    case 'card':
      return cardStep(view);
    case 'processing':
    case 'done':
      return processingStep(view);
  }
}

function progress(current: CheckoutStep): Html {
  const at = STEP_ORDER.indexOf(current);
  return html`<ol class="progress" aria-label="Checkout steps">
    ${STEP_ORDER.map((step, i) => {
      const state = i < at ? 'done' : i === at ? 'current' : 'todo';
      return html`<li class="${state}" ${i === at ? html`aria-current="step"` : ''}>${STEP_LABELS[step as keyof typeof STEP_LABELS]}</li>`;
    })}
  </ol>`;
}

/** A form that posts normally without JavaScript and is swapped in place by htmx with it. */
function form(action: string, view: StepView, body: Html, className = 'step-form'): Html {
  return html`<form
    class="${className}"
    method="post"
    action="${action}"
    hx-post="${action}"
    hx-target="#step"
    hx-swap="outerHTML"
    hx-disabled-elt="find button"
    novalidate
  >
    <input type="hidden" name="token" value="${view.session.cartId}" />
    <input type="hidden" name="csrf" value="${view.csrf}" />
    ${body}
  </form>`;
}

function field(options: { view: StepView; name: FieldName; label: string; value?: string; attributes: Html; hint?: Html | string }): Html {
  const error = options.view.errors?.[options.name];
  const described = [options.hint ? `${options.name}-hint` : '', error ? `${options.name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${options.name}">${options.label}</label>
    <input
      id="${options.name}"
      name="${options.name}"
      value="${options.value ?? ''}"
      ${options.attributes}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${error ? html`aria-invalid="true"` : ''}
    />
    ${options.hint ? html`<p class="hint" id="${options.name}-hint">${options.hint}</p>` : ''}
    ${error ? html`<p class="field-error" id="${options.name}-error" role="alert">${error}</p>` : ''}
  </div>`;
}

function cancelForm(view: StepView): Html {
  return form('/cancel', view, html`<button type="submit" class="secondary">Cancel</button>`, 'cancel-form');
}

function contactStep(view: StepView): Html {
  return html`<h2>Confirm it's you</h2>
    <p class="lead">We'll send a one-time code to your phone or email before you pay.</p>
    ${form(
      '/contact',
      view,
      html`${field({
          view,
          name: 'contact',
          label: 'Phone or email',
          value: view.values?.contact,
          attributes: html`type="text" inputmode="email" autocomplete="email" autocapitalize="off" spellcheck="false" maxlength="254" required`,
          hint: 'e.g. +33 6 12 34 56 78 or you@example.com',
        })} <button type="submit">Send code</button>`,
    )}
    ${cancelForm(view)}`;
}

function codeStep(view: StepView): Html {
  const { contactHint, otp } = view.session.state;
  return html`<h2>Enter your code</h2>
    <p class="lead">We sent a 6-digit code${contactHint ? html` to <strong>${contactHint}</strong>` : ''}.</p>
    ${form(
      '/code',
      view,
      html`${field({
          view,
          name: 'code',
          label: 'One-time code',
          attributes: html`type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" required`,
          hint: view.sandbox ? html`Test mode: use <code>${view.sandbox.otp}</code>.` : undefined,
        })}
        ${otp && otp.attemptsLeft < 5 ? html`<p class="hint">${otp.attemptsLeft} ${otp.attemptsLeft === 1 ? 'attempt' : 'attempts'} left.</p>` : ''}
        <button type="submit">Verify</button>`,
    )}
    ${
      otp && otp.resendsLeft > 0
        ? form(
            '/resend-code',
            view,
            html`<button type="submit" class="link-button" data-available-at="${otp.resendAvailableAt}">Resend code</button>
              <span class="hint resend-wait" aria-live="polite"></span>`,
            'resend-form',
          )
        : ''
    }
    ${cancelForm(view)}`;
}

function cardStep(view: StepView): Html {
  return html`<h2>Pay with card</h2>
    ${form(
      '/card',
      view,
      html`${field({
          view,
          name: 'number',
          label: 'Card number',
          attributes: html`type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234" data-format="card-number"
          required`,
        })}
        <div class="field-row">
          ${field({
            view,
            name: 'expiry',
            label: 'Expiry (MM/YY)',
            value: view.values?.expiry,
            attributes: html`type="text" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" data-format="expiry" required`,
          })}
          ${field({
            view,
            name: 'cvv',
            label: 'CVV',
            attributes: html`type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required`,
          })}
        </div>
        ${view.sandbox ? html`<p class="hint">Test mode: card <code>4111 1111 1111 1111</code>, expiry <code>12/30</code>, CVV <code>123</code>.</p>` : ''}
        <button type="submit" class="pay-button">Pay</button>`,
    )}
    ${cancelForm(view)}`;
}

/**
 * Polls until the payment has an outcome; the answer that finds it done redirects the customer. While
 * the processor has not answered the workflow keeps asking it (up to PAYMENT_RESOLUTION_SECONDS), so
 * the page says it is confirming, not failing: an unknown outcome is never a decline.
 */
function processingStep(view: StepView): Html {
  const statusUrl = `/status?token=${view.session.cartId}`;
  if (view.stillConfirming) {
    const store = view.session.store.name;
    return html`<div class="processing" hx-get="${statusUrl}" hx-trigger="every 10s" hx-target="#step" hx-swap="outerHTML">
      <h2>We are still waiting for your bank</h2>
      <p class="lead">
        Your payment has not failed, and you will not be charged twice. ${store} will be told the outcome as soon as your bank answers, and this page will move
        on by itself if it does. You can also leave now: please do not pay again for this order.
      </p>
      <p><a href="${view.stillConfirming.returnUrl}">Return to ${store}</a></p>
    </div>`;
  }
  return html`<div class="processing" hx-get="${statusUrl}" hx-trigger="every 1s" hx-target="#step" hx-swap="outerHTML">
    <span class="spinner" aria-hidden="true"></span>
    <h2>Confirming your payment…</h2>
    <p class="lead">Please keep this page open. If your bank is slow to answer this can take a few minutes; you will not be charged twice.</p>
    <noscript
      ><p><a href="${statusUrl}">Check the payment status</a></p></noscript
    >
  </div>`;
}
