import { html } from 'hono/html';
import type { Html } from './layout.js';
import { t } from '../../i18n/index.js';
import type { FieldName, StepView } from './step-view.js';

/** A form that posts normally without JavaScript and is swapped in place by htmx with it. */
export function form(action: string, view: StepView, body: Html, className = 'step-form'): Html {
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

export function field(options: {
  view: StepView;
  name: FieldName;
  label: string;
  value?: string;
  attributes: Html;
  hint?: Html | string;
  ltr?: boolean;
}): Html {
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

export function cancelForm(view: StepView): Html {
  return form('/cancel', view, html`<button type="submit" class="secondary">${t(view.locale, 'common.cancel')}</button>`, 'cancel-form');
}
