import { html } from 'hono/html';
import type { CheckoutSession } from '../load-session.js';
import type { Html } from './layout.js';
import type { CheckoutStep } from '../../../core/checkout/session.js';
import { t, tHtml } from '../../i18n/index.js';
import type { SavedCard } from '../../../core/checkout/saved-cards.js';

export type FieldName = 'contact' | 'code' | 'number' | 'expiry' | 'cvv';

/** What one rendering of the step panel needs besides the session. */
export interface StepView {
  session: CheckoutSession;
  /** The language the page speaks (web/i18n). */
  locale: string;
  csrf: string;
  sandbox: { otp: string } | undefined;
  errors?: Partial<Record<FieldName | 'form', string>>;
  notice?: string;
  /** Typed values worth keeping on an error; never the card number or the CVV. */
  values?: { contact?: string; expiry?: string; remind?: boolean };
  /**
   * Set once a payment has waited longer than PAYMENT_CONFIRMATION_WAIT_SECONDS for its outcome: the
   * page stops holding the customer and says the outcome will follow, with the way back to the store.
   */
  stillConfirming?: { returnUrl: string };
  /**
   * At the card step only, so after the code, at a merchant that allows saved cards
   * (docs/saved-cards.md): the verified contact's saved cards, most recently used first, and the
   * consent to save the typed card. Absent: nothing of saved cards shows.
   */
  savedCards?: { cards: SavedCard[]; offerSave: boolean };
  /**
   * Set when this browser is not the one that verified the code (web/checkout/browser-binding.ts): in
   * place of the step, the way to act here, a fresh code to the verified contact.
   */
  rebind?: true;
}

const STEP_ORDER: CheckoutStep[] = ['contact', 'code', 'card'];
const STEP_LABELS = { contact: 'steps.contact', code: 'steps.code', card: 'steps.card' } as const;

/** The part of the page that changes as the customer moves on; htmx swaps it in place. */
export function stepPanel(view: StepView): Html {
  const { step } = view.session.state;
  const shown = view.rebind ? 'code' : step;
  return html`<section id="step" class="panel step" aria-live="polite" data-step="${view.rebind ? 'rebind' : step}">
    ${shown === 'processing' || shown === 'authenticating' ? '' : progress(shown, view.locale)}
    ${view.errors?.form ? html`<p class="alert" role="alert">${view.errors.form}</p>` : ''}
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''} ${stepBody(view)}
  </section>`;
}

function stepBody(view: StepView): Html {
  if (view.rebind) return rebindStep(view);
  switch (view.session.state.step) {
    case 'contact':
      return contactStep(view);
    case 'code':
      return codeStep(view);
    case 'card':
      return cardStep(view);
    case 'authenticating':
      return authenticatingStep(view);
    case 'processing':
    case 'done':
      return processingStep(view);
  }
}

/**
 * The page answers a load at this step with a redirect to the bank's challenge (web/checkout/routes.ts);
 * this panel is what an htmx swap shows meanwhile, with a plain link that works without JavaScript.
 */
function authenticatingStep(view: StepView): Html {
  const redirectUrl = view.session.state.authentication?.redirectUrl;
  return html`<h2>${t(view.locale, 'threeDSecure.heading')}</h2>
    <p class="lead">${t(view.locale, 'threeDSecure.lead')}</p>
    ${redirectUrl ? html`<a class="button-link" href="${redirectUrl}">${t(view.locale, 'threeDSecure.continue')}</a>` : ''}`;
}

function progress(current: CheckoutStep, locale: string): Html {
  const at = STEP_ORDER.indexOf(current);
  return html`<ol class="progress" aria-label="${t(locale, 'steps.label')}">
    ${STEP_ORDER.map((step, i) => {
      const state = i < at ? 'done' : i === at ? 'current' : 'todo';
      return html`<li class="${state}" ${i === at ? html`aria-current="step"` : ''}>${t(locale, STEP_LABELS[step as keyof typeof STEP_LABELS])}</li>`;
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

function field(options: { view: StepView; name: FieldName; label: string; value?: string; attributes: Html; hint?: Html | string; ltr?: boolean }): Html {
  const error = options.view.errors?.[options.name];
  const described = [options.hint ? `${options.name}-hint` : '', error ? `${options.name}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${options.name}">${options.label}</label>
    <input
      id="${options.name}"
      name="${options.name}"
      value="${options.value ?? ''}"
      ${options.attributes}
      ${options.ltr ? html`dir="ltr"` : ''}
      ${described ? html`aria-describedby="${described}"` : ''}
      ${error ? html`aria-invalid="true"` : ''}
    />
    ${options.hint ? html`<p class="hint" id="${options.name}-hint">${options.hint}</p>` : ''}
    ${error ? html`<p class="field-error" id="${options.name}-error" role="alert">${error}</p>` : ''}
  </div>`;
}

function cancelForm(view: StepView): Html {
  return form('/cancel', view, html`<button type="submit" class="secondary">${t(view.locale, 'common.cancel')}</button>`, 'cancel-form');
}

/**
 * A recovered session offers the contact its abandoned session verified, by its hint: the customer
 * sends the code there with one tap (the web tier reads the address from the ledger), or types another.
 */
function rememberedContact(view: StepView): Html {
  const remembered = view.session.rememberedContact;
  if (!remembered) return html`<p class="lead">${t(view.locale, 'contact.lead')}</p>`;
  return html`<p class="lead">${tHtml(view.locale, 'contact.rememberedLead', { contact: remembered.hint })}</p>
    ${form(
      '/contact',
      view,
      html`<input type="hidden" name="remembered" value="1" />
        <button type="submit">${tHtml(view.locale, 'contact.rememberedSubmit', { contact: remembered.hint })}</button>`,
      'step-form remembered-contact',
    )}
    <p>${t(view.locale, 'contact.otherLead')}</p>`;
}

/**
 * Abandoned-cart recovery's consent (docs/abandoned-cart-recovery.md), on a cart that asked for
 * recovery: unticked unless the customer ticked it, and counted by the session only once this
 * contact is verified.
 */
function reminderConsent(view: StepView): Html {
  if (!view.session.offersReminder) return html``;
  return html`<div class="field consent">
    <label class="checkbox"
      ><input type="checkbox" name="remind" value="1" aria-describedby="remind-hint" ${view.values?.remind ? html`checked` : ''} />
      ${t(view.locale, 'contact.remind')}</label
    >
    <p class="hint" id="remind-hint">${t(view.locale, 'contact.remindHint')}</p>
  </div>`;
}

function contactStep(view: StepView): Html {
  return html`<h2>${t(view.locale, 'contact.heading')}</h2>
    ${rememberedContact(view)}
    ${form(
      '/contact',
      view,
      html`${field({
          view,
          name: 'contact',
          label: t(view.locale, 'contact.label'),
          value: view.values?.contact,
          attributes: html`type="text" inputmode="email" autocomplete="email" autocapitalize="off" spellcheck="false" maxlength="254" required`,
          hint: t(view.locale, 'contact.hint'),
        })}
        ${reminderConsent(view)} <button type="submit">${t(view.locale, 'contact.submit')}</button>`,
    )}
    ${cancelForm(view)}`;
}

function codeStep(view: StepView): Html {
  const { contactHint, otp } = view.session.state;
  return html`<h2>${t(view.locale, 'code.heading')}</h2>
    <p class="lead">${contactHint ? tHtml(view.locale, 'code.leadTo', { contact: contactHint }) : t(view.locale, 'code.lead')}</p>
    ${form(
      '/code',
      view,
      html`${codeField(view)} ${otp && otp.attemptsLeft < 5 ? html`<p class="hint">${t(view.locale, 'code.attemptsLeft', { left: otp.attemptsLeft })}</p>` : ''}
        <button type="submit">${t(view.locale, 'code.submit')}</button>`,
    )}
    ${
      otp && otp.resendsLeft > 0
        ? form(
            '/resend-code',
            view,
            html`<button
                type="submit"
                class="link-button"
                data-available-at="${otp.resendAvailableAt}"
                data-wait-text="${t(view.locale, 'code.resendAvailableIn', { seconds: '{seconds}' })}"
              >
                ${t(view.locale, 'code.resend')}
              </button>
              <span class="hint resend-wait" aria-live="polite"></span>`,
            'resend-form',
          )
        : ''
    }
    ${cancelForm(view)}`;
}

/** The one-time code's field, for the first verification and another browser's. */
function codeField(view: StepView): Html {
  return field({
    view,
    name: 'code',
    label: t(view.locale, 'code.label'),
    ltr: true,
    attributes: html`type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" required`,
    hint: view.sandbox ? tHtml(view.locale, 'code.sandboxHint', { otp: view.sandbox.otp }) : undefined,
  });
}

/**
 * Another browser than the one that verified: nothing of the checkout beyond the masked contact, and a
 * fresh code to that contact before anything else. While a code waits, its field; otherwise the button
 * that sends one.
 */
function rebindStep(view: StepView): Html {
  const { contactHint, rebind } = view.session.state;
  const hint = contactHint ?? '';
  const waiting = rebind && Date.parse(rebind.codeExpiresAt) > Date.now() ? rebind : undefined;
  const lead = html`<h2>${t(view.locale, 'rebind.heading')}</h2>
    <p class="lead">${t(view.locale, 'rebind.lead', { contact: hint })}</p>`;
  if (!waiting) return html`${lead} ${form('/resend-code', view, html`<button type="submit">${t(view.locale, 'rebind.send', { contact: hint })}</button>`)}`;
  return html`${lead}
  ${form(
    '/code',
    view,
    html`${codeField(view)}
      <p class="hint">${t(view.locale, 'code.attemptsLeft', { left: waiting.attemptsLeft })}</p>
      <button type="submit">${t(view.locale, 'code.submit')}</button>`,
  )}
  ${
    waiting.resendsLeft > 0
      ? form('/resend-code', view, html`<button type="submit" class="link-button">${t(view.locale, 'code.resend')}</button>`, 'resend-form')
      : ''
  }`;
}

/** A saved card as the customer knows it: `Visa •••• 1111`. */
const savedCardLabel = (card: SavedCard) => `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} •••• ${card.last4}`;
const savedCardExpiry = (card: SavedCard) => `${String(card.expMonth).padStart(2, '0')}/${String(card.expYear % 100).padStart(2, '0')}`;

/** The typed card's fields, with the consent to save it where saved cards are offered. */
function newCardForm(view: StepView): Html {
  return form(
    '/card',
    view,
    html`${field({
        view,
        name: 'number',
        label: t(view.locale, 'card.numberLabel'),
        ltr: true,
        attributes: html`type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234" data-format="card-number"
        required`,
      })}
      <div class="field-row">
        ${field({
          view,
          name: 'expiry',
          label: t(view.locale, 'card.expiryLabel'),
          ltr: true,
          value: view.values?.expiry,
          attributes: html`type="text" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" data-format="expiry" required`,
        })}
        ${field({
          view,
          name: 'cvv',
          label: t(view.locale, 'card.cvvLabel'),
          ltr: true,
          attributes: html`type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123" required`,
        })}
      </div>
      ${
        view.savedCards?.offerSave
          ? html`<div class="field checkbox save-card">
              <input type="checkbox" id="save-card" name="save" value="1" aria-describedby="save-card-hint" />
              <label for="save-card">${t(view.locale, 'card.saveLabel')}</label>
              <p class="hint" id="save-card-hint">${t(view.locale, 'card.saveHint')}</p>
            </div>`
          : ''
      }
      ${view.sandbox ? html`<p class="hint">${tHtml(view.locale, 'card.sandboxHint', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' })}</p>` : ''}
      <button type="submit" class="pay-button">${t(view.locale, 'card.submit')}</button>`,
  );
}

function cardStep(view: StepView): Html {
  const cards = view.savedCards?.cards ?? [];
  if (cards.length === 0)
    return html`<h2>${t(view.locale, 'card.heading')}</h2>
      ${newCardForm(view)} ${cancelForm(view)}`;
  // A typed card the checks refused keeps its fields open.
  const typing = Boolean(view.errors?.number || view.errors?.expiry || view.errors?.cvv);
  return html`<h2>${t(view.locale, 'card.heading')}</h2>
    ${form(
      '/card',
      view,
      html`<fieldset class="saved-cards">
          <legend>${t(view.locale, 'card.savedLegend')}</legend>
          ${cards.map(
            (card, i) =>
              html`<label class="saved-card"
                ><input type="radio" name="savedCard" value="${card.id}" ${i === 0 ? html`checked` : ''} />
                <span class="saved-card-label" dir="ltr">${savedCardLabel(card)}</span>
                <span class="hint">${t(view.locale, 'card.savedExpires', { expiry: savedCardExpiry(card) })}</span></label
              >`,
          )}
        </fieldset>
        <button type="submit" class="pay-button">${t(view.locale, 'card.submit')}</button>`,
      'step-form saved-card-form',
    )}
    <details class="another-card" ${typing ? html`open` : ''}>
      <summary>${t(view.locale, 'card.useAnother')}</summary>
      ${newCardForm(view)}
    </details>
    <details class="manage-saved-cards">
      <summary>${t(view.locale, 'card.manage')}</summary>
      <ul class="saved-card-list">
        ${cards.map(
          (card) =>
            html`<li>
              <span dir="ltr">${savedCardLabel(card)}</span> <span class="hint">${t(view.locale, 'card.savedExpires', { expiry: savedCardExpiry(card) })}</span>
              ${form(
                '/saved-cards/remove',
                view,
                html`<input type="hidden" name="savedCard" value="${card.id}" /><button
                    type="submit"
                    class="secondary"
                    aria-label="${t(view.locale, 'card.remove')} ${savedCardLabel(card)}"
                  >
                    ${t(view.locale, 'card.remove')}
                  </button>`,
                'remove-saved-card',
              )}
            </li>`,
        )}
      </ul>
      ${form(
        '/saved-cards/remove',
        view,
        html`<input type="hidden" name="all" value="1" /><button type="submit" class="secondary">${t(view.locale, 'card.removeAll')}</button>`,
        'remove-saved-card',
      )}
    </details>
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
