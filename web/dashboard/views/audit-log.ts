import { html } from 'hono/html';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, type AuditEntry } from '../../../core/audit/audit-log.js';
import { formatTime } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { cellLabel } from './settings-page.js';
import { scrollingTable } from './table.js';

export interface AuditFilterForm {
  actor: string;
  actorType: string;
  action: string;
  from: string;
  to: string;
  /** Operators only: one merchant's platformUuid. */
  merchant: string;
}

export interface AuditView {
  viewer: 'merchant' | 'operator';
  who: string;
  csrf: string;
  form: AuditFilterForm;
  error?: string;
  entries: AuditEntry[];
  base: string;
  exportHref: string;
  nextHref: string | null;
}

const ACTOR_TYPE_LABELS: Record<(typeof AUDIT_ACTOR_TYPES)[number], string> = { api_key: 'API key', user: 'Person', operator: 'Operator' };

function actorCell(entry: AuditEntry): Html {
  const { actor } = entry;
  if (actor.type === 'api_key') return html`API key <strong>${actor.name}</strong> <code class="muted">${actor.id.slice(0, 8)}</code>`;
  if (actor.type === 'user') return html`${actor.email}`;
  return html`Operator <code class="muted">${actor.id}</code>`;
}

const change = (entry: AuditEntry) =>
  entry.before || entry.after
    ? html`${entry.before ? html`<code>${JSON.stringify(entry.before)}</code> → ` : ''}${entry.after ? html`<code>${JSON.stringify(entry.after)}</code>` : ''}`
    : html`<span class="muted">—</span>`;

function field(name: keyof AuditFilterForm, label: string, input: Html): Html {
  return html`<div class="field">
    <label for="audit-${name}">${label}</label>
    ${input}
  </div>`;
}

export function auditPage(view: AuditView): Html {
  const { form } = view;
  const columns = ['When', ...(view.viewer === 'operator' ? ['Merchant'] : []), 'Who', 'From', 'Action', 'On', 'Change'];
  return dashboardLayout({
    title: 'Audit log',
    signedIn: { who: view.who, role: view.viewer, section: 'audit', csrf: view.csrf },
    body: html`<h1>Audit log</h1>
      <p class="lead">Every decision made with your keys and in this dashboard, newest first. Entries are never changed or removed.</p>
      <form class="panel filters" method="get" action="${view.base}" aria-label="Filter the audit log">
        ${field('actor', 'Who (key name, email or id)', html`<input type="text" id="audit-actor" name="actor" value="${form.actor}" />`)}
        ${field(
          'actorType',
          'Kind of actor',
          html`<select id="audit-actorType" name="actorType">
            <option value="">Any</option>
            ${AUDIT_ACTOR_TYPES.map((t) => html`<option value="${t}" ${form.actorType === t ? 'selected' : ''}>${ACTOR_TYPE_LABELS[t]}</option>`)}
          </select>`,
        )}
        ${field(
          'action',
          'Action',
          html`<select id="audit-action" name="action">
            <option value="">Any</option>
            ${AUDIT_ACTIONS.map((a) => html`<option value="${a}" ${form.action === a ? 'selected' : ''}>${a}</option>`)}
          </select>`,
        )}
        ${field('from', 'From', html`<input type="date" id="audit-from" name="from" value="${form.from}" />`)}
        ${field('to', 'To (inclusive)', html`<input type="date" id="audit-to" name="to" value="${form.to}" />`)}
        ${
          view.viewer === 'operator'
            ? field('merchant', 'Merchant (platformUuid)', html`<input type="text" id="audit-merchant" name="merchant" value="${form.merchant}" />`)
            : ''
        }
        <button type="submit">Filter</button>
      </form>
      ${view.error ? html`<p class="alert" role="alert">${view.error}</p>` : ''}
      <p class="export"><a href="${view.exportHref}" download>Export these entries as CSV</a></p>
      <section aria-labelledby="audit-title">
        <h2 id="audit-title" class="visually-hidden">Entries</h2>
        ${scrollingTable({
          label: 'Audit log entries',
          empty: 'No entry matches.',
          columns,
          rows: view.entries,
          cells: (e) =>
            html`<td>${cellLabel('When')}${formatTime(e.at.toISOString())}</td>
              ${view.viewer === 'operator' ? html`<td>${cellLabel('Merchant')}${e.merchantId ? html`<code>${e.merchantId}</code>` : html`<span class="muted">all</span>`}</td>` : ''}
              <td data-audit-actor>${cellLabel('Who')}${actorCell(e)}</td>
              <td>${cellLabel('From')}${e.ip ?? html`<span class="muted">—</span>`}</td>
              <td data-audit-action>${cellLabel('Action')}<code>${e.action}</code></td>
              <td>${cellLabel('On')}${e.target ? html`<code>${e.target}</code>` : html`<span class="muted">—</span>`}</td>
              <td>${cellLabel('Change')}${change(e)}</td>`,
        })}
        ${view.nextHref ? html`<nav class="pager" aria-label="Pages"><a href="${view.nextHref}">Older entries</a></nav>` : ''}
      </section>`,
  });
}
