import { html } from 'hono/html';
import type { Invitation, Person } from '../../../core/people/people.js';
import type { Role } from '../../../core/people/roles.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { cellLabel } from './settings-page.js';
import { scrollingTable } from './table.js';

/** What the last post did: someone invited (the link, shown this once), something done, or a refusal. */
export interface PeopleResult {
  invited?: { email: string; url: string; emailed: boolean };
  done?: string;
  error?: string;
}

export interface PeopleView {
  base: string;
  team: 'merchant' | 'operators';
  who: string;
  /** The signed-in person's id; undefined for a bootstrap session (API key or OPERATOR_TOKEN). */
  me: string | undefined;
  grantable: readonly Role[];
  people: Person[];
  invitations: Invitation[];
  limits: Map<string, number> | undefined;
  csrf: string;
  result: PeopleResult;
}

const token = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;
const roleOptions = (roles: readonly Role[], chosen?: Role) =>
  roles.map((role) => html`<option value="${role}" ${role === chosen ? 'selected' : ''}>${words(role)}</option>`);

function personCells(view: PeopleView, person: Person): Html {
  const mine = person.id === view.me;
  const changeable = !mine && view.grantable.includes(person.role);
  const id = `role-${person.id}`;
  return html`<td>${cellLabel('Email')}${person.email}${mine ? ' (you)' : ''}</td>
    <td>${cellLabel('Role')}${words(person.role)}</td>
    <td>${cellLabel('Since')}${formatTime(person.createdAt.toISOString())}</td>
    <td>
      ${cellLabel('Change')}
      ${
        changeable
          ? html`<form class="inline-form" method="post" action="${view.base}/${person.id}/role">
                ${token(view.csrf)}
                <label for="${id}" class="visually-hidden">New role for ${person.email}</label>
                <select id="${id}" name="role">
                  ${roleOptions(view.grantable, person.role)}
                </select>
                <button type="submit" class="secondary">Change role</button>
              </form>
              <form class="inline-form" method="post" action="${view.base}/${person.id}/remove">
                ${token(view.csrf)}
                <button type="submit" class="secondary">Remove ${person.email}</button>
              </form>`
          : ''
      }
    </td>`;
}

function invitationCells(view: PeopleView, invitation: Invitation): Html {
  return html`<td>${cellLabel('Email')}${invitation.email}</td>
    <td>${cellLabel('Role')}${words(invitation.role)}</td>
    <td>${cellLabel('Expires')}${formatTime(invitation.expiresAt.toISOString())}</td>
    <td>
      ${cellLabel('Revoke')}
      <form class="inline-form" method="post" action="${view.base}/invitations/${invitation.id}/revoke">
        ${token(view.csrf)}
        <button type="submit" class="secondary">Revoke the invitation of ${invitation.email}</button>
      </form>
    </td>`;
}

function limitSection(view: PeopleView): Html {
  if (!view.limits) return html``;
  const limits = [...view.limits];
  return html`<section class="panel" aria-labelledby="limit-title">
    <h2 id="limit-title">Support's refund limit</h2>
    <p class="lead">The most someone with the support role may refund at once, per currency. No limit set for a currency: support cannot refund in it.</p>
    ${
      limits.length
        ? html`<ul>
            ${limits.map(([currency, max]) => html`<li>${currency}: up to ${formatMoney(max, currency)}</li>`)}
          </ul>`
        : ''
    }
    <form method="post" action="${view.base}/refund-limit">
      ${token(view.csrf)}
      <div class="field">
        <label for="limit-currency">Currency</label><input id="limit-currency" name="currency" type="text" autocomplete="off" maxlength="3" required />
      </div>
      <div class="field">
        <label for="limit-amount">Most support may refund at once</label
        ><input id="limit-amount" name="maxAmount" type="text" inputmode="decimal" autocomplete="off" required />
      </div>
      <button type="submit">Set the limit</button>
    </form>
  </section>`;
}

/** The people page: who is on the team, pending invitations, inviting, and support's refund limit. */
export function peoplePage(view: PeopleView): Html {
  const { result } = view;
  const title = view.team === 'merchant' ? 'People' : 'Operators';
  return dashboardLayout({
    title,
    signedIn: { who: view.who, role: view.team === 'merchant' ? 'merchant' : 'operator', section: 'people', csrf: view.csrf },
    body: html`<h1>${title}</h1>
      ${result.error ? html`<p class="alert" role="alert">${result.error}</p>` : ''}
      ${result.done ? html`<p class="notice" role="status">${result.done}</p>` : ''}
      ${
        result.invited
          ? html`<div class="notice" role="status">
              <p>
                Invited ${result.invited.email}.
                ${result.invited.emailed ? 'We emailed them this link' : 'The email to them could not be sent: give them this link yourself'}, shown here once;
                it works once, for 48 hours:
              </p>
              <p><code class="invitation-link">${result.invited.url}</code></p>
            </div>`
          : ''
      }
      <section class="panel" aria-labelledby="people-title">
        <h2 id="people-title">Who has access</h2>
        ${scrollingTable({
          label: title,
          empty: 'Nobody yet: invite someone below.',
          columns: ['Email', 'Role', 'Since', 'Change'],
          rows: view.people,
          cells: (person) => personCells(view, person),
        })}
      </section>
      <section class="panel" aria-labelledby="invitations-title">
        <h2 id="invitations-title">Pending invitations</h2>
        ${scrollingTable({
          label: 'Invitations not yet accepted',
          empty: 'No pending invitations.',
          columns: ['Email', 'Role', 'Expires', 'Revoke'],
          rows: view.invitations,
          cells: (invitation) => invitationCells(view, invitation),
        })}
        <form method="post" action="${view.base}/invitations">
          ${token(view.csrf)}
          <div class="field"><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" autocomplete="off" required /></div>
          <div class="field">
            <label for="invite-role">Role</label>
            <select id="invite-role" name="role">
              ${roleOptions(view.grantable)}
            </select>
          </div>
          <button type="submit">Invite</button>
        </form>
      </section>
      ${limitSection(view)}`,
  });
}
