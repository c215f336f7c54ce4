import { html } from 'hono/html';
import type { Html } from './layout.js';
import { t, tHtml } from '../../i18n/index.js';
import { cancelForm, field, form } from './form.js';
import type { StepView } from './step-view.js';

export function codeStep(view: StepView): Html {
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
export function rebindStep(view: StepView): Html {
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
