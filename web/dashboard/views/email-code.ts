import { html } from 'hono/html';
import { words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';

const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}" />`;

/**
 * After asking for a code: the same page whether or not the address is a member's (no enumeration),
 * the code field, and a way to ask again. Plain form posts; a refusal is said beside the field.
 */
export function emailCodePage(view: { email: string; side: 'merchant' | 'operator'; csrf: string; error?: string }): Html {
  const { error } = view;
  return dashboardLayout({
    title: 'Enter your code',
    body: html`<section class="panel narrow">
      <h1>Enter your code</h1>
      <p class="lead" role="status">If <strong>${view.email}</strong> may sign in here, we emailed it a six-digit code. It works once, for ten minutes.</p>
      <form method="post" action="/dashboard/sign-in/email-code/verify" novalidate>
        ${hidden('csrf', view.csrf)} ${hidden('email', view.email)} ${hidden('side', view.side)}
        <div class="field ${error ? 'invalid' : ''}">
          <label for="sign-in-code">Code</label>
          <input
            type="text"
            id="sign-in-code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            maxlength="6"
            spellcheck="false"
            required
            autofocus
            aria-describedby="sign-in-code-hint${error ? ' sign-in-code-error' : ''}"
            ${error ? html`aria-invalid="true"` : ''}
          />
          <p class="hint" id="sign-in-code-hint">The six digits of the newest email; asking again replaces the code.</p>
          ${error ? html`<p class="field-error" id="sign-in-code-error">${error}</p>` : ''}
        </div>
        <button type="submit">Sign in</button>
      </form>
      <form method="post" action="/dashboard/sign-in/email-code">
        ${hidden('csrf', view.csrf)} ${hidden('email', view.email)} ${hidden('side', view.side)}
        <button type="submit" class="secondary">Email me a new code</button>
      </form>
      <p class="aside"><a href="${view.side === 'operator' ? '/dashboard/sign-in/operator' : '/dashboard/sign-in'}">Back to sign-in</a></p>
    </section>`,
  });
}

/** An email on several teams: which one this session is for. */
export function chooseTeamPage(view: { email: string; csrf: string; teams: { name: string; role: string; choice: string }[] }): Html {
  return dashboardLayout({
    title: 'Choose a team',
    body: html`<section class="panel narrow">
      <h1>Choose a team</h1>
      <p class="lead">${view.email} is on several teams: sign in to one.</p>
      ${view.teams.map(
        (team) =>
          html`<form method="post" action="/dashboard/sign-in/email-code/team">
            ${hidden('csrf', view.csrf)} ${hidden('choice', team.choice)}
            <button type="submit" class="secondary">${team.name}, as ${words(team.role)}</button>
          </form>`,
      )}
    </section>`,
  });
}
