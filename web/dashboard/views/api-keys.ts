import { html } from 'hono/html';
import { API_KEY_SCOPE_MEANING, API_KEY_SCOPES, type ApiKeyScope, type ApiKeySummary } from '../../../core/merchants/api-keys.js';
import { formatTime } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { cellLabel } from './settings-page.js';
import { scrollingTable } from './table.js';

/** What the last post did: a key created (shown this once), one revoked, or the form refused as typed. */
export interface ApiKeysResult {
  created?: { name: string; scope: ApiKeyScope; apiKey: string };
  revoked?: string;
  error?: string;
  form?: { name: string; scope: string };
}

export interface ApiKeysView {
  keys: ApiKeySummary[];
  /** The key this session was signed in with: revoking it signs this browser out. */
  /** The key this session was opened with, if a bootstrap sign-in. */
  currentKeyId: string | undefined;
  csrf: string;
  result: ApiKeysResult;
}

const COLUMNS = ['Name', 'Scope', 'Key', 'Created', 'Last used', 'Revoke'] as const;

function keyRow(key: ApiKeySummary, view: ApiKeysView): Html {
  const current = key.id === view.currentKeyId;
  return html`<td>${cellLabel('Name')}${key.name}${current ? html` <span class="muted">(this session)</span>` : ''}</td>
    <td>${cellLabel('Scope')}<span data-key-scope>${key.scope}</span></td>
    <td>${cellLabel('Key')}<code>${key.prefix}…</code></td>
    <td>${cellLabel('Created')}${formatTime(key.createdAt.toISOString())}</td>
    <td>${cellLabel('Last used')}${key.lastUsedAt ? formatTime(key.lastUsedAt.toISOString()) : html`<span class="muted">never</span>`}</td>
    <td>
      <form method="post" action="/dashboard/api-keys/${key.id}/revoke">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <button type="submit" class="small secondary" aria-label="Revoke the key ${key.name}">Revoke</button>
      </form>
    </td>`;
}

export function apiKeysPage(view: ApiKeysView & { who: string }): Html {
  const { result } = view;
  const form = result.form ?? { name: '', scope: 'read' };
  return dashboardLayout({
    title: 'API keys',
    signedIn: { who: view.who, role: 'merchant', section: 'keys', csrf: view.csrf },
    body: html`<h1>API keys</h1>
      ${
        result.created
          ? html`<div class="notice" role="status">
              <p>Created <strong>${result.created.name}</strong> (scope ${result.created.scope}). The key, shown this once: store it now.</p>
              <p><code class="secret" data-new-api-key>${result.created.apiKey}</code></p>
            </div>`
          : ''
      }
      ${result.revoked ? html`<p class="notice" role="status">Revoked ${result.revoked}: it is refused from now on; your other keys keep working.</p>` : ''}
      <section class="panel" aria-labelledby="keys-title">
        <h2 id="keys-title">Active keys</h2>
        <p class="lead">Each key is sent as <code>Authorization: Bearer &lt;key&gt;</code>. Last use is kept to the minute.</p>
        ${scrollingTable({
          label: 'Active API keys',
          empty: 'You have no active API key.',
          columns: COLUMNS,
          rows: view.keys,
          cells: (key) => keyRow(key, view),
        })}
      </section>
      <section class="panel" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        ${result.error ? html`<p class="alert" role="alert" id="new-key-error">${result.error}</p>` : ''}
        <form method="post" action="/dashboard/api-keys">
          <input type="hidden" name="csrf" value="${view.csrf}" />
          <div class="field ${result.error ? 'invalid' : ''}">
            <label for="key-name">Name</label>
            <input
              type="text"
              id="key-name"
              name="name"
              maxlength="60"
              required
              value="${form.name}"
              ${result.error ? html`aria-describedby="new-key-error"` : ''}
            />
          </div>
          <fieldset class="field">
            <legend>Scope</legend>
            ${API_KEY_SCOPES.map(
              (scope) =>
                html`<label class="choice"
                  ><input type="radio" name="scope" value="${scope}" ${form.scope === scope ? 'checked' : ''} /> <strong>${scope}</strong>:
                  ${API_KEY_SCOPE_MEANING[scope]}</label
                >`,
            )}
          </fieldset>
          <button type="submit">Create key</button>
        </form>
      </section>`,
  });
}
