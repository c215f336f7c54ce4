import { html } from 'hono/html';
import type { Html } from './layout.js';

/**
 * A data table that scrolls sideways inside its own focusable region on a narrow screen, rather than
 * the page, with a message in its place when it has no rows: every list in the dashboard.
 */
export function scrollingTable<Row>(table: {
  label: string;
  empty: string;
  columns: readonly string[];
  rows: readonly Row[];
  cells: (row: Row) => Html;
}): Html {
  if (table.rows.length === 0) return html`<p class="panel lead">${table.empty}</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${table.label}">
    <table>
      <thead>
        <tr>
          ${table.columns.map((column) => html`<th scope="col">${column}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${table.rows.map(
          (row) =>
            html`<tr>
              ${table.cells(row)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
