import { html } from 'hono/html';
import type { StoredViolation } from '../../../core/integrity/csp-reports.js';
import { formatTime } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

export interface PageIntegrityView {
  violations: StoredViolation[];
  csrf: string;
}

/**
 * What browsers reported from our pages: each distinct CSP or integrity violation once, how often and
 * when last. On a page that loads only its inventory, this list stays empty (docs/security.md).
 */
export function pageIntegrityPage(view: PageIntegrityView): Html {
  return dashboardLayout({
    title: 'Page integrity',
    signedIn: { who: 'Operator', role: 'operator', section: 'integrity', csrf: view.csrf },
    body: html`<h1>Page integrity</h1>
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
