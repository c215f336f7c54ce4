import { html } from 'hono/html';
import { DISPUTE_STATUSES } from '../../../core/checkout/dispute-model.js';
import type { DisputeRow } from '../../../core/checkout/disputes.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

/** The filter as typed (the date as YYYY-MM-DD), kept in the URL. */
export interface DisputeSearchForm {
  status: string;
  dueBy: string;
}

export interface DisputeSearchView {
  form: DisputeSearchForm;
  error?: string;
  disputes: DisputeRow[];
  csrf: string;
}

function results(view: DisputeSearchView): Html {
  return html`<section id="disputes" aria-labelledby="disputes-title">
    <h2 id="disputes-title" class="visually-hidden">Disputes found</h2>
    ${scrollingTable({
      label: 'Disputes table',
      empty: 'No disputes match.',
      columns: ['Dispute', 'Cart', 'Status', 'Evidence due by', 'Amount', 'Reason', 'Answer'],
      rows: view.disputes,
      cells: (d) =>
        html`<td><code>${d.id}</code></td>
          <td><code>${d.cartId}</code> <span class="muted">(${d.environment})</span></td>
          <td><span class="badge-status" data-dispute-status="${d.status}">${words(d.status)}</span></td>
          <td>${formatTime(d.evidenceDueBy.toISOString())}</td>
          <td>${formatMoney(d.amount, d.currency)}</td>
          <td>${words(d.reason)}</td>
          <td>${d.answer ? words(d.answer) : 'none yet'}</td>`,
    })}
  </section>`;
}

/** Every merchant's disputes, soonest due first, filtered by status and due date with a plain GET form. */
export function disputeSearchPage(view: DisputeSearchView): Html {
  return dashboardLayout({
    title: 'Disputes',
    signedIn: { who: 'Operator', role: 'operator', section: 'carts', csrf: view.csrf },
    body: html`<h1>Disputes</h1>
      <form class="panel filters" method="get" action="/dashboard/operator/disputes" aria-label="Search disputes">
        <div class="field">
          <label for="search-status">Status</label>
          <select id="search-status" name="status">
            <option value="">Any</option>
            ${DISPUTE_STATUSES.map((s) => html`<option value="${s}" ${view.form.status === s ? 'selected' : ''}>${words(s)}</option>`)}
          </select>
        </div>
        <div class="field ${view.error ? 'invalid' : ''}">
          <label for="search-dueBy">Evidence due by (inclusive)</label>
          <input
            type="date"
            id="search-dueBy"
            name="dueBy"
            value="${view.form.dueBy}"
            ${view.error ? html`aria-invalid="true" aria-describedby="search-dueBy-error"` : ''}
          />
          ${view.error ? html`<p class="field-error" id="search-dueBy-error">${view.error}</p>` : ''}
        </div>
        <button type="submit">Search</button>
      </form>
      ${results(view)}`,
  });
}
