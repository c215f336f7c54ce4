import { html } from 'hono/html';
import { CART_STATUSES } from '../../../core/checkout/session.js';
import type { OrderData } from '../../../core/checkout/order-model.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

/** The filter form's fields as typed (dates as YYYY-MM-DD), kept in the URL so a filtered page can be shared and reloaded. */
export interface OrderFilterForm {
  status: string;
  from: string;
  to: string;
  extraKey: string;
  extraValue: string;
}

export interface OrdersView {
  filters: OrderFilterForm;
  /** Problems with the filters, by field. */
  errors: Partial<Record<keyof OrderFilterForm, string>>;
  orders: OrderData[];
  nextCursor: string | null;
  /** The page after this one, as a query string with the filters. */
  nextHref: string | null;
  /** Every order these filters find, as CSV. */
  exportHref: string;
}

function filterField(view: OrdersView, name: keyof OrderFilterForm, label: string, input: Html): Html {
  const error = view.errors[name];
  return html`<div class="field ${error ? 'invalid' : ''}">
    <label for="filter-${name}">${label}</label>
    ${input} ${error ? html`<p class="field-error" id="filter-${name}-error">${error}</p>` : ''}
  </div>`;
}

const invalidAttrs = (view: OrdersView, name: keyof OrderFilterForm) =>
  view.errors[name] ? html`aria-invalid="true" aria-describedby="filter-${name}-error"` : '';

function textInput(view: OrdersView, name: keyof OrderFilterForm, type: 'text' | 'date'): Html {
  return html`<input type="${type}" id="filter-${name}" name="${name}" value="${view.filters[name]}" ${invalidAttrs(view, name)} />`;
}

function ordersResults(view: OrdersView): Html {
  return html`<section id="orders" aria-labelledby="orders-title">
    <h2 id="orders-title" class="visually-hidden">Orders found</h2>
    ${scrollingTable({
      label: 'Orders table',
      empty: 'No orders match.',
      columns: ['Order', 'Created', 'Created with', 'Status', 'Amount', 'Refunded', 'Card', 'Extra'],
      rows: view.orders,
      cells: (o) =>
        html`<td><a href="/dashboard/orders/${encodeURIComponent(o.cartId)}">${o.cartId}</a></td>
          <td>${formatTime(o.createdAt)}</td>
          <td data-created-with="${o.createdWith}">${o.createdWith === 'api_key' ? 'API key' : 'public'}</td>
          <td><span class="badge-status status-${o.status}">${words(o.status)}</span></td>
          <td>${formatMoney(o.amount, o.currency)}</td>
          <td>${o.refundedTotal ? formatMoney(o.refundedTotal, o.currency) : ''}</td>
          <td>${o.payment ? `${o.payment.brand} •••• ${o.payment.last4}` : ''}</td>
          <td>${Object.entries(o.extra).map(([k, v]) => html`<code>${k}=${v}</code> `)}</td>`,
    })}
    ${
      view.nextHref
        ? html`<nav class="pager" aria-label="Pages">
            <a href="${view.nextHref}" hx-get="${view.nextHref}" hx-target="#orders-view" hx-swap="outerHTML" hx-push-url="true">Older orders</a>
          </nav>`
        : ''
    }
  </section>`;
}

/** The filters and what they found: what htmx swaps when the filters are sent or the next page is asked for. */
export function ordersView(view: OrdersView): Html {
  return html`<div id="orders-view">
    <form
      class="panel filters"
      method="get"
      action="/dashboard/orders"
      hx-get="/dashboard/orders"
      hx-target="#orders-view"
      hx-swap="outerHTML"
      hx-push-url="true"
      aria-label="Filter orders"
    >
      ${filterField(
        view,
        'status',
        'Status',
        html`<select id="filter-status" name="status" ${invalidAttrs(view, 'status')}>
          <option value="">Any</option>
          ${CART_STATUSES.map((s) => html`<option value="${s}" ${view.filters.status === s ? 'selected' : ''}>${words(s)}</option>`)}
        </select>`,
      )}
      ${filterField(view, 'from', 'Created from', textInput(view, 'from', 'date'))}
      ${filterField(view, 'to', 'Created to (inclusive)', textInput(view, 'to', 'date'))}
      ${filterField(view, 'extraKey', 'Extra key', textInput(view, 'extraKey', 'text'))}
      ${filterField(view, 'extraValue', 'Extra value', textInput(view, 'extraValue', 'text'))}
      <button type="submit">Filter</button>
    </form>
    <p class="export"><a href="${view.exportHref}" download>Export these orders as CSV</a></p>
    <p class="visually-hidden" role="status">${view.orders.length === 0 ? 'No orders match.' : `${view.orders.length} orders shown.`}</p>
    ${ordersResults(view)}
  </div>`;
}

export function ordersPage(view: OrdersView & { who: string; csrf: string }): Html {
  return dashboardLayout({
    title: 'Orders',
    signedIn: { who: view.who, role: 'merchant', section: 'orders', csrf: view.csrf },
    body: html`<h1>Orders</h1>
      ${ordersView(view)}`,
  });
}
