import { html } from 'hono/html';
import type { StoredViolation } from '../../../core/integrity/csp-reports.js';
import type { Alert, CheckRun } from '../../../core/integrity/tamper-check.js';
import { formatTime } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

/** What the last acknowledgement did, or why it was refused. */
export interface IntegrityNotice {
  done?: string;
  error?: string;
}

export interface PageIntegrityView {
  alerts: Alert[];
  runs: CheckRun[];
  violations: StoredViolation[];
  csrf: string;
  notice?: IntegrityNotice;
}

const time = (at: Date | null) => (at ? formatTime(at.toISOString()) : '');

/**
 * What browsers reported from our pages: each distinct CSP or integrity violation once, how often and
 * when last. On a page that loads only its inventory, this list stays empty (docs/security.md).
 */
export function pageIntegrityPage(view: PageIntegrityView): Html {
  return dashboardLayout({
    title: 'Page integrity',
    signedIn: { who: 'Operator', role: 'operator', section: 'integrity', csrf: view.csrf },
    body: html`<h1>Page integrity</h1>
      ${view.notice?.error ? html`<p class="alert" role="alert">${view.notice.error}</p>` : ''}
      ${view.notice?.done ? html`<p class="notice" role="status">${view.notice.done}</p>` : ''}
      <h2>Tamper check alerts</h2>
      <p class="lead">
        Each difference the scheduled tamper check found between the payment pages as a browser receives them and the approved inventory and header baseline,
        once. Acknowledge it with what you found and did (docs/runbook.md); it closes once a run no longer finds it.
      </p>
      ${scrollingTable({
        label: 'Tamper check alerts not closed',
        empty: 'No open alert: the last runs found the pages as approved.',
        columns: ['Alert', 'Raised', 'Page', 'Difference', 'Status', 'Still found', 'Acknowledge'],
        rows: view.alerts,
        cells: (a) =>
          html`<td>${a.id}</td>
            <td>${time(a.raisedAt)}</td>
            <td>${a.variant}</td>
            <td>${a.difference}</td>
            <td>${a.status}${a.acknowledgedBy ? html` by ${a.acknowledgedBy} (${time(a.acknowledgedAt)}): ${a.note}` : ''}</td>
            <td>${a.seenInLastRun ? 'yes' : 'no'}</td>
            <td>
              ${
                a.status === 'open'
                  ? html`<form method="post" action="/dashboard/operator/integrity/alerts/${a.id}/acknowledge">
                      <input type="hidden" name="csrf" value="${view.csrf}" />
                      <label>Note <input name="note" required minlength="3" maxlength="1000" /></label>
                      <button type="submit">Acknowledge</button>
                    </form>`
                  : ''
              }
            </td>`,
      })}
      <h2>Recent tamper check runs</h2>
      <p>
        Evidence for assessors (inventory, header baseline, every run and alert with its triage; last 90 days, or add
        <code>?from=YYYY-MM-DD&amp;to=YYYY-MM-DD</code>): <a href="/dashboard/operator/integrity/evidence.md">Markdown</a>,
        <a href="/dashboard/operator/integrity/evidence.json">JSON</a>.
      </p>
      ${scrollingTable({
        label: 'Recent tamper check runs',
        empty: 'The tamper check has not run yet: it runs at each worker start and on its schedule.',
        columns: ['Run', 'Started', 'Finished', 'Pages', 'Result', 'Differences'],
        rows: view.runs,
        cells: (r) =>
          html`<td>${r.id}</td>
            <td>${time(r.startedAt)}</td>
            <td>${time(r.finishedAt)}</td>
            <td>${r.pages ?? ''}</td>
            <td>${r.result ?? 'running'}${r.failure ? `: ${r.failure}` : ''}</td>
            <td>${r.differences ?? ''}</td>`,
      })}
      <h2>Violations reported by browsers</h2>
      <p class="lead">
        Each CSP or Integrity-Policy violation a customer's browser reported from our pages, once per distinct violation. URLs are kept without their query: the
        cart token is never stored.
      </p>
      ${scrollingTable({
        label: 'Reported violations',
        empty: 'No browser has reported a violation.',
        columns: ['Last seen', 'Type', 'Page', 'Directive', 'Blocked', 'Source', 'Mode', 'Times', 'First seen'],
        rows: view.violations,
        cells: (v) =>
          html`<td>${formatTime(v.lastSeenAt.toISOString())}</td>
            <td>${v.reportType}</td>
            <td>${v.documentUrl}</td>
            <td>${v.directive}</td>
            <td>${v.blockedUrl}</td>
            <td>${v.sourceFile ? `${v.sourceFile}${v.lineNumber === null ? '' : `:${v.lineNumber}`}` : ''}</td>
            <td>${v.disposition}</td>
            <td>${v.times}</td>
            <td>${formatTime(v.firstSeenAt.toISOString())}</td>`,
      })}`,
  });
}
