import { html } from 'hono/html';
import type { MerchantSummary } from '../../../core/merchants/merchants.js';
import type { OrderData } from '../../../core/checkout/order-model.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

export interface OperatorView {
  merchants: MerchantSummary[];
  csrf: string;
  /** What the last action did, said above the table. */
  notice?: string;
}

function action(platformUuid: string, name: string, label: string, merchantName: string, csrf: string): Html {
  const path = `/dashboard/operator/merchants/${encodeURIComponent(platformUuid)}/${name}`;
  return html`<form method="post" action="${path}" hx-post="${path}" hx-target="#merchants" hx-swap="outerHTML" class="inline-form">
    <input type="hidden" name="csrf" value="${csrf}" />
    <button type="submit" class="small" aria-label="${label}: ${merchantName}">${label}</button>
  </form>`;
}

export function merchantsSection(view: OperatorView): Html {
  return html`<section id="merchants" aria-labelledby="merchants-title">
    <h2 id="merchants-title" class="visually-hidden">Every merchant</h2>
    ${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
    <div class="table-scroll" tabindex="0" role="region" aria-label="Merchants table">
      <table>
        <thead>
          <tr>
            <th scope="col">Merchant</th>
            <th scope="col">Environment</th>
            <th scope="col">Status</th>
            <th scope="col">Webhook endpoint</th>
            <th scope="col">API key</th>
            <th scope="col">Created</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${view.merchants.map(
            (m) =>
              html`<tr data-platform-uuid="${m.platformUuid}">
                <td><a href="/dashboard/operator/merchants/${encodeURIComponent(m.platformUuid)}">${m.name}</a><br /><code>${m.platformUuid}</code></td>
                <td>${m.environment}</td>
                <td><span class="badge-status ${m.status === 'active' ? 'status-ok' : 'status-bad'}">${m.status}</span></td>
                <td>
                  <span class="badge-status ${m.endpointStatus === 'enabled' ? 'status-ok' : 'status-bad'}">${m.endpointStatus}</span>
                  <span class="url">${m.webhookUrl}</span>
                  ${m.endpointDisabledReason ? html`<span class="muted">(${m.endpointDisabledReason})</span>` : ''}
                </td>
                <td>${m.apiKeyPrefix ? html`<code>${m.apiKeyPrefix}…</code>` : html`<span class="muted">none</span>`}</td>
                <td>${formatTime(m.createdAt)}</td>
                <td class="actions">
                  ${
                    m.status === 'active'
                      ? action(m.platformUuid, 'deactivate', 'Deactivate', m.name, view.csrf)
                      : action(m.platformUuid, 'activate', 'Activate', m.name, view.csrf)
                  }
                  ${
                    m.endpointStatus === 'enabled'
                      ? action(m.platformUuid, 'disable-endpoint', 'Disable endpoint', m.name, view.csrf)
                      : action(m.platformUuid, 'enable-endpoint', 'Enable endpoint', m.name, view.csrf)
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function operatorPage(view: OperatorView): Html {
  return dashboardLayout({
    title: 'Merchants',
    signedIn: { who: 'Operator', role: 'operator', section: 'merchants', csrf: view.csrf },
    body: html`<h1>Merchants</h1>
      ${merchantsSection(view)}`,
  });
}

export interface OperatorMerchantView {
  merchant: MerchantSummary;
  orders: OrderData[];
  nextHref: string | null;
  /** The Temporal UI's page of each cart's session workflow. */
  workflowUrl: (cartId: string) => string;
  csrf: string;
}

/** One merchant for an operator: its settings at a glance and its carts, each linked to its workflow in the Temporal UI. */
export function operatorMerchantPage(view: OperatorMerchantView): Html {
  const { merchant: m } = view;
  return dashboardLayout({
    title: m.name,
    signedIn: { who: 'Operator', role: 'operator', section: 'merchants', csrf: view.csrf },
    body: html`<p class="aside"><a href="/dashboard/operator">All merchants</a></p>
      <h1>${m.name}</h1>
      <section class="panel" aria-labelledby="merchant-facts">
        <h2 id="merchant-facts">Settings</h2>
        <dl class="facts">
          <dt>platformUuid</dt>
          <dd><code>${m.platformUuid}</code></dd>
          <dt>Environment</dt>
          <dd>${m.environment}</dd>
          <dt>Status</dt>
          <dd>${m.status}</dd>
          <dt>Webhook URL</dt>
          <dd>${m.webhookUrl} (${m.endpointStatus}${m.endpointDisabledReason ? `: ${m.endpointDisabledReason}` : ''})</dd>
          <dt>Domains</dt>
          <dd>
            ${
              m.domainVerification.length
                ? m.domainVerification.map((d) => `${d.domain}${d.status === 'not-required' ? '' : ` (${d.status})`}`).join(', ')
                : 'none'
            }
          </dd>
          <dt>API key</dt>
          <dd>${m.apiKeyPrefix ? html`<code>${m.apiKeyPrefix}…</code>` : 'none'}${m.requireApiKeyForCarts ? ', required on create-cart' : ''}</dd>
        </dl>
      </section>
      <section id="carts" aria-labelledby="carts-title">
        <h2 id="carts-title">Carts</h2>
        ${scrollingTable({
          label: 'Carts table',
          empty: 'No carts yet.',
          columns: ['Cart', 'Created', 'Status', 'Amount', 'Workflow'],
          rows: view.orders,
          cells: (o) =>
            html`<td><code>${o.cartId}</code></td>
              <td>${formatTime(o.createdAt)}</td>
              <td><span class="badge-status status-${o.status}">${words(o.status)}</span></td>
              <td>${formatMoney(o.amount, o.currency)}</td>
              <td>
                <a href="${view.workflowUrl(o.cartId)}" rel="noopener noreferrer" target="_blank"
                  >Open in Temporal UI<span class="visually-hidden"> (cart ${o.cartId}, new tab)</span></a
                >
              </td>`,
        })}
        ${view.nextHref ? html`<nav class="pager" aria-label="Pages"><a href="${view.nextHref}">Older carts</a></nav>` : ''}
      </section>`,
  });
}
