import { html } from 'hono/html';
import { API_KEY_SCOPE_MEANING, API_KEY_SCOPES, type ApiKeyScope, type ApiKeySummary } from '../../../core/merchants/api-keys.js';
import { nameField, revokeCell, shownOnce, usageCells } from './credentials.js';
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
  /** The key this session was opened with, if a bootstrap sign-in: revoking it signs this browser out. */
  currentKeyId: string | undefined;
  csrf: string;
  result: ApiKeysResult;
  /** Whether the signed-in role may create and revoke keys of this scope (web/dashboard/access.ts, mayManageApiKey). */
  manages: (scope: ApiKeyScope) => boolean;
}

const COLUMNS = ['Name', 'Scope', 'Key', 'Created', 'Last used', 'Revoke'] as const;

function keyRow(key: ApiKeySummary, view: ApiKeysView): Html {
  const current = key.id === view.currentKeyId;
  return html`<td>${cellLabel('Name')}${key.name}${current ? html` <span class="muted">(this session)</span>` : ''}</td>
    <td>${cellLabel('Scope')}<span data-key-scope>${key.scope}</span></td>
    <td>${cellLabel('Key')}<code>${key.prefix}…</code></td>
    ${usageCells(key)}
    ${view.manages(key.scope) ? revokeCell(`/dashboard/api-keys/${key.id}/revoke`, view.csrf, `Revoke the key ${key.name}`) : html`<td class="muted">owners only</td>`}`;
}

export function apiKeysPage(view: ApiKeysView & { who: string }): Html {
  const { result } = view;
  const form = result.form ?? { name: '', scope: 'read' };
  const scopes = API_KEY_SCOPES.filter(view.manages);
  return dashboardLayout({
    title: 'API keys',
    signedIn: { who: view.who, role: 'merchant', section: 'keys', csrf: view.csrf },
    body: html`<h1>API keys</h1>
      ${
        result.created
          ? shownOnce(html`Created <strong>${result.created.name}</strong> (scope ${result.created.scope}).`, result.created.apiKey, 'data-new-api-key')
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
          ${nameField({ id: 'key-name', value: form.name, error: result.error, errorId: 'new-key-error' })}
          <fieldset class="field">
            <legend>Scope</legend>
            ${scopes.map(
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
