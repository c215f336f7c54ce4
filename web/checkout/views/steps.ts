import { html } from 'hono/html';
import type { Html } from './layout.js';
import type { CheckoutStep } from '../../../core/checkout/session.js';
import { t } from '../../i18n/index.js';
import { cardStep } from './card-step.js';
import { codeStep, rebindStep } from './code-step.js';
import { contactStep } from './contact-step.js';
import { authenticatingStep, processingStep } from './payment-steps.js';
import type { StepView } from './step-view.js';

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

function progress(current: CheckoutStep, locale: string): Html {
  const at = STEP_ORDER.indexOf(current);
  return html`<ol class="progress" aria-label="${t(locale, 'steps.label')}">
    ${STEP_ORDER.map((step, i) => {
      const state = i < at ? 'done' : i === at ? 'current' : 'todo';
      return html`<li class="${state}" ${i === at ? html`aria-current="step"` : ''}>${t(locale, STEP_LABELS[step as keyof typeof STEP_LABELS])}</li>`;
    })}
  </ol>`;
}
