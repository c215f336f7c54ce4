import { html } from 'hono/html';
import type { PasskeySummary } from '../../../core/people/passkeys.js';
import type { DashboardSession } from '../../../core/people/sessions.js';
import { formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { cellLabel } from './settings-page.js';
import { scrollingTable } from './table.js';

/** A button that runs a passkey ceremony (web/assets/dashboard-passkeys.js), its outcome read out beside it. */
export function passkeyButton(view: { kind: 'enrol' | 'sign-in'; options: string; verify: string; csrf: string; label: string }): Html {
  const statusId = `passkey-${view.kind}-status`;
  return html`<button
      type="button"
      data-passkey="${view.kind}"
      data-options="${view.options}"
      data-verify="${view.verify}"
      data-csrf="${view.csrf}"
      aria-describedby="${statusId}"
    >
      ${view.label}
    </button>
    <p class="hint" id="${statusId}" role="status" aria-live="polite"></p>
    <noscript><p class="hint">Passkeys need JavaScript in this browser.</p></noscript>`;
}

/** What an invitation link opens: who invited whom as what, and one button that makes the passkey. */
export function invitationPage(view: { token: string; email: string; role: string; team: string; csrf: string }): Html {
  const base = `/dashboard/invitations/${view.token}`;
  return dashboardLayout({
    title: 'Accept your invitation',
    passkeys: true,
    body: html`<section class="panel narrow">
      <h1>Join ${view.team}</h1>
      <p class="lead">You were invited as <strong>${view.email}</strong>, with the role <strong>${words(view.role)}</strong>.</p>
      <p>Create a passkey on this device: you sign in with it from now on, with no password. This link then stops working.</p>
      ${passkeyButton({ kind: 'enrol', options: `${base}/options`, verify: `${base}/passkey`, csrf: view.csrf, label: 'Create a passkey and join' })}
    </section>`,
  });
}

/** Your account: who you are, your role, and your passkeys (deleting one signs you out everywhere). */
export function accountPage(view: { session: DashboardSession; passkeys: PasskeySummary[]; csrf: string }): Html {
  const { session } = view;
  return dashboardLayout({
    title: 'Your account',
    passkeys: true,
    signedIn: { who: session.email ?? words(session.role), role: session.platformUuid ? 'merchant' : 'operator', csrf: view.csrf },
    body: html`<h1>Your account</h1>
      <section class="panel">
        <p>
          ${session.email ? html`Signed in as <strong>${session.email}</strong>, ` : 'Signed in with a bootstrap credential, '}role
          <strong>${words(session.role)}</strong>.
        </p>
      </section>
      <section class="panel" aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">Your passkeys</h2>
        <p class="lead">Deleting a passkey signs you out everywhere, this browser included.</p>
        ${
          session.userId
            ? html`<p>Signed in with a code, or on a new device? Create a passkey here to sign in with it next time.</p>
                ${passkeyButton({
                  kind: 'enrol',
                  options: '/dashboard/account/passkeys/options',
                  verify: '/dashboard/account/passkeys',
                  csrf: view.csrf,
                  label: 'Create a passkey on this device',
                })}`
            : ''
        }
        ${scrollingTable({
          label: 'Your passkeys, when each was made and last used',
          empty: 'No passkeys: you signed in with a bootstrap credential.',
          columns: ['Created', 'Last used', 'Delete'],
          rows: view.passkeys,
          cells: (passkey) =>
            html`<td>${cellLabel('Created')}${formatTime(passkey.createdAt.toISOString())}</td>
              <td>${cellLabel('Last used')}${passkey.lastUsedAt ? formatTime(passkey.lastUsedAt.toISOString()) : 'never'}</td>
              <td>
                ${cellLabel('Delete')}
                <form class="inline-form" method="post" action="/dashboard/account/passkeys/${encodeURIComponent(passkey.id)}/delete">
                  <input type="hidden" name="csrf" value="${view.csrf}" />
                  <button type="submit" class="secondary">Delete the passkey made ${formatTime(passkey.createdAt.toISOString())}</button>
                </form>
              </td>`,
        })}
      </section>`,
  });
}
