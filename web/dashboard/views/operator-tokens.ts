import { html } from 'hono/html';
import type { OperatorTokenSummary } from '../../../core/people/operator-tokens.js';
import { nameField, revokeCell, shownOnce, usageCells } from './credentials.js';
import { dashboardLayout, type Html } from './layout.js';
import { cellLabel } from './settings-page.js';
import { scrollingTable } from './table.js';

/** What the last post did: a token made (shown this once), one revoked, or the form refused as typed. */
export interface OperatorTokensResult {
  created?: { name: string; token: string };
  revoked?: string;
  error?: string;
  name?: string;
}

export interface OperatorTokensView {
  who: string;
  /** Undefined for a bootstrap (OPERATOR_TOKEN) session: a personal token needs a person. */
  tokens: OperatorTokenSummary[] | undefined;
  csrf: string;
  result: OperatorTokensResult;
}

const COLUMNS = ['Name', 'Token', 'Created', 'Last used', 'Revoke'] as const;

function tokenRow(token: OperatorTokenSummary, csrf: string): Html {
  return html`<td>${cellLabel('Name')}${token.name}</td>
    <td>${cellLabel('Token')}<code>${token.prefix}…</code></td>
    ${usageCells(token)} ${revokeCell(`/dashboard/operator/tokens/${token.id}/revoke`, csrf, `Revoke the token ${token.name}`)}`;
}

/** An operator's own tokens for the operator API and the codec: made (shown once), listed, revoked. */
export function operatorTokensPage(view: OperatorTokensView): Html {
  const { result } = view;
  return dashboardLayout({
    title: 'Your operator tokens',
    signedIn: { who: view.who, role: 'operator', section: 'tokens', csrf: view.csrf },
    body: html`<h1>Your operator tokens</h1>
      ${result.created ? shownOnce(html`Created <strong>${result.created.name}</strong>.`, result.created.token, 'data-new-operator-token') : ''}
      ${result.revoked ? html`<p class="notice" role="status">Revoked ${result.revoked}: it is refused from now on.</p>` : ''}
      ${
        view.tokens === undefined
          ? html`<section class="panel">
              <p>You signed in with the bootstrap OPERATOR_TOKEN: personal tokens belong to a person. Sign in with your passkey to make yours.</p>
            </section>`
          : html`<section class="panel" aria-labelledby="tokens-title">
                <h2 id="tokens-title">Active tokens</h2>
                <p class="lead">
                  Send one as <code>Authorization: Bearer &lt;token&gt;</code> to the operator API or the codec: it acts as you, with your role, and the audit
                  log names you. Removing you from the operators revokes them all.
                </p>
                ${scrollingTable({ label: 'Your active operator tokens', empty: 'You have no active token.', columns: COLUMNS, rows: view.tokens, cells: (t) => tokenRow(t, view.csrf) })}
              </section>
              <section class="panel" aria-labelledby="new-token-title">
                <h2 id="new-token-title">Create a token</h2>
                ${result.error ? html`<p class="alert" role="alert" id="new-token-error">${result.error}</p>` : ''}
                <form method="post" action="/dashboard/operator/tokens">
                  <input type="hidden" name="csrf" value="${view.csrf}" />
                  ${nameField({ id: 'token-name', value: result.name ?? '', error: result.error, errorId: 'new-token-error' })}
                  <button type="submit">Create token</button>
                </form>
              </section>`
      }`,
  });
}
