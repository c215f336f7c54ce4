import { html, raw } from 'hono/html';
import { formatTime } from './format.js';
import type { Html } from './layout.js';
import { cellLabel } from './settings-page.js';

/** What the API keys page and the operator tokens page share: a credential is shown once, listed with its use, revoked, and named. */

/** The new credential, in the one answer that will ever show it; `marker` lets tests and scripts find it. */
export function shownOnce(intro: Html, secret: string, marker: 'data-new-api-key' | 'data-new-operator-token'): Html {
  return html`<div class="notice" role="status">
    <p>${intro} Shown this once: store it now.</p>
    <p><code class="secret" ${raw(marker)}>${secret}</code></p>
  </div>`;
}

/** Its Created and Last used cells. */
export function usageCells(credential: { createdAt: Date; lastUsedAt: Date | null }): Html {
  return html`<td>${cellLabel('Created')}${formatTime(credential.createdAt.toISOString())}</td>
    <td>${cellLabel('Last used')}${credential.lastUsedAt ? formatTime(credential.lastUsedAt.toISOString()) : html`<span class="muted">never</span>`}</td>`;
}

/** Its Revoke cell: a form of its own, so revoking one is one post. */
export function revokeCell(action: string, csrf: string, label: string): Html {
  return html`<td>
    <form method="post" action="${action}">
      <input type="hidden" name="csrf" value="${csrf}" />
      <button type="submit" class="small secondary" aria-label="${label}">Revoke</button>
    </form>
  </td>`;
}

/** The create form's Name field, its refusal (if any) announced and tied to it. */
export function nameField(field: { id: string; value: string; error: string | undefined; errorId: string }): Html {
  return html`<div class="field ${field.error ? 'invalid' : ''}">
    <label for="${field.id}">Name</label>
    <input
      type="text"
      id="${field.id}"
      name="name"
      maxlength="60"
      required
      value="${field.value}"
      ${field.error ? html`aria-describedby="${field.errorId}"` : ''}
    />
  </div>`;
}
