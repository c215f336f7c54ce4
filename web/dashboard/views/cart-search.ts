import { html } from 'hono/html';
import { CART_STATUSES } from '../../../core/checkout/session.js';
import { LEDGER_STEPS, type FoundCart, type LedgerStep } from '../../../core/checkout/cart-search.js';
import type { MerchantSummary } from '../../../core/merchants/merchants.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

/** The search form's fields as typed (dates as YYYY-MM-DD), kept in the URL so a search can be shared and reloaded. */
export interface CartSearchForm {
  cartId: string;
  merchant: string;
  status: string;
  step: string;
  from: string;
  to: string;
}

export interface CartSearchView {
  form: CartSearchForm;
  /** Problems with the fields, by field. */
  errors: Partial<Record<keyof CartSearchForm, string>>;
  merchants: MerchantSummary[];
  carts: FoundCart[];
  /** The page after this one, with the same filters. */
  nextHref: string | null;
  /** The Temporal UI's page of each cart's session workflow. */
  workflowUrl: (cartId: string) => string;
  csrf: string;
}

/** What each step of the ledger means, in the operator's words. */
export const STEP_LABELS: Record<LedgerStep, string> = {
  not_started: 'not started (no customer action yet)',
  in_checkout: 'in checkout (contact, code or card)',
  processing: 'processing (charging the card)',
  done: 'done (paid, failed, cancelled, abandoned or refunded)',
};

function field(view: CartSearchView, name: keyof CartSearchForm, label: string, input: Html): Html {
  const error = view.errors[name];
  return html`<div class="field ${error ? 'invalid' : ''}">
    <label for="search-${name}">${label}</label>
    ${input} ${error ? html`<p class="field-error" id="search-${name}-error">${error}</p>` : ''}
  </div>`;
}

const invalidAttrs = (view: CartSearchView, name: keyof CartSearchForm) =>
  view.errors[name] ? html`aria-invalid="true" aria-describedby="search-${name}-error"` : '';

function input(view: CartSearchView, name: keyof CartSearchForm, type: 'text' | 'date'): Html {
  return html`<input type="${type}" id="search-${name}" name="${name}" value="${view.form[name]}" ${invalidAttrs(view, name)} />`;
}

function choice(view: CartSearchView, name: keyof CartSearchForm, options: ReadonlyArray<{ value: string; label: string }>): Html {
  return html`<select id="search-${name}" name="${name}" ${invalidAttrs(view, name)}>
    <option value="">Any</option>
    ${options.map((o) => html`<option value="${o.value}" ${view.form[name] === o.value ? 'selected' : ''}>${o.label}</option>`)}
  </select>`;
}

function results(view: CartSearchView): Html {
  return html`<section id="carts" aria-labelledby="carts-title">
    <h2 id="carts-title" class="visually-hidden">Carts found</h2>
    ${scrollingTable({
      label: 'Carts table',
      empty: 'No carts match.',
      columns: ['Cart', 'Merchant', 'Created', 'Status', 'Step', 'Amount', 'Workflow'],
      rows: view.carts,
      cells: (cart) =>
        html`<td><code>${cart.cartId}</code></td>
          <td>
            <a href="/dashboard/operator/merchants/${encodeURIComponent(cart.platformUuid)}">${cart.merchantName}</a>
            <span class="muted">(${cart.environment})</span>
          </td>
          <td>${formatTime(cart.createdAt.toISOString())}</td>
          <td><span class="badge-status status-${cart.status}">${words(cart.status)}</span></td>
          <td>${words(cart.step)}</td>
          <td>${formatMoney(cart.amount, cart.currency)}</td>
          <td>
            <a href="${view.workflowUrl(cart.cartId)}" rel="noopener noreferrer" target="_blank"
              >Open in Temporal UI<span class="visually-hidden"> (cart ${cart.cartId}, new tab)</span></a
            >
          </td>`,
    })}
    ${view.nextHref ? html`<nav class="pager" aria-label="Pages"><a href="${view.nextHref}">Older carts</a></nav>` : ''}
  </section>`;
}

/** Every merchant's carts, searched by a plain GET form (it works without JavaScript), each linked to its workflow. */
export function cartSearchPage(view: CartSearchView): Html {
  return dashboardLayout({
    title: 'Carts',
    signedIn: { who: 'Operator', role: 'operator', section: 'carts', csrf: view.csrf },
    body: html`<h1>Carts</h1>
      <form class="panel filters" method="get" action="/dashboard/operator/carts" aria-label="Search carts">
        ${field(view, 'cartId', 'Cart ID', input(view, 'cartId', 'text'))}
        ${field(
          view,
          'merchant',
          'Merchant',
          choice(
            view,
            'merchant',
            view.merchants.map((m) => ({ value: m.platformUuid, label: `${m.name} (${m.environment})` })),
          ),
        )}
        ${field(
          view,
          'status',
          'Status',
          choice(
            view,
            'status',
            CART_STATUSES.map((s) => ({ value: s, label: words(s) })),
          ),
        )}
        ${field(
          view,
          'step',
          'Step',
          choice(
            view,
            'step',
            LEDGER_STEPS.map((s) => ({ value: s, label: STEP_LABELS[s] })),
          ),
        )}
        ${field(view, 'from', 'Created from', input(view, 'from', 'date'))} ${field(view, 'to', 'Created to (inclusive)', input(view, 'to', 'date'))}
        <button type="submit">Search</button>
      </form>
      <p class="visually-hidden" role="status">${view.carts.length === 0 ? 'No carts match.' : `${view.carts.length} carts shown.`}</p>
      ${results(view)}`,
  });
}
