import { html } from 'hono/html';
import type { Html } from './layout.js';
import { t, tHtml } from '../../i18n/index.js';
import { cancelForm, field, form } from './form.js';
import type { StepView } from './step-view.js';

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

export function contactStep(view: StepView): Html {
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
