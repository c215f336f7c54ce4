import { html } from 'hono/html';
import type { Html } from './layout.js';
import { t, tHtml } from '../../i18n/index.js';
import type { SavedCard } from '../../../core/checkout/saved-cards.js';
import { cancelForm, field, form } from './form.js';
import type { StepView } from './step-view.js';

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

export function cardStep(view: StepView): Html {
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
