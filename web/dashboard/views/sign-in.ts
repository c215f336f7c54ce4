import { html } from 'hono/html';
import { dashboardLayout, type Html } from './layout.js';
import { passkeyButton } from './passkeys.js';

export interface SignInView {
  role: 'merchant' | 'operator';
  csrf: string;
  error?: string;
  /** A refusal of the email-code form: an address that is none, or too many codes asked for. */
  emailError?: string;
}

const TEXT = {
  merchant: {
    title: 'Sign in',
    label: 'API key',
    hint: html`Your merchant API key, <code>sk_sandbox_…</code> or <code>sk_production_…</code>. It is checked, never stored in your browser.`,
    action: '/dashboard/sign-in',
    field: 'apiKey',
    bootstrap: 'Or, to set up the first owner, with the API key',
    other: { href: '/dashboard/sign-in/operator', label: 'Operators sign in here' },
  },
  operator: {
    title: 'Operator sign-in',
    label: 'Operator token',
    hint: html`The <code>OPERATOR_TOKEN</code> of this deployment. It is checked, never stored in your browser.`,
    action: '/dashboard/sign-in/operator',
    field: 'operatorToken',
    bootstrap: 'Or, to set up the first operator, with the operator token',
    other: { href: '/dashboard/sign-in', label: 'Merchants sign in here' },
  },
} as const;

/** No passkey on this device: a one-time code to the email you were invited with (web/dashboard/email-code.ts). */
function emailCodeForm(view: SignInView): Html {
  const error = view.emailError;
  return html`<h2>No passkey on this device?</h2>
    <form method="post" action="/dashboard/sign-in/email-code" novalidate>
      <input type="hidden" name="csrf" value="${view.csrf}" />
      <input type="hidden" name="side" value="${view.role}" />
      <div class="field ${error ? 'invalid' : ''}">
        <label for="sign-in-email">Email</label>
        <input
          type="email"
          id="sign-in-email"
          name="email"
          autocomplete="username"
          spellcheck="false"
          required
          aria-describedby="sign-in-email-hint${error ? ' sign-in-email-error' : ''}"
          ${error ? html`aria-invalid="true" autofocus` : ''}
        />
        <p class="hint" id="sign-in-email-hint">We email you a code that signs you in once; then create a passkey on this device.</p>
        ${error ? html`<p class="field-error" id="sign-in-email-error">${error}</p>` : ''}
      </div>
      <button type="submit" class="secondary">Email me a code</button>
    </form>`;
}

/** Plain form posts (no htmx): a successful sign-in is a redirect to a whole new page. */
export function signInPage(view: SignInView): Html {
  const text = TEXT[view.role];
  const errorId = `${text.field}-error`;
  return dashboardLayout({
    title: text.title,
    passkeys: true,
    body: html`<section class="panel narrow">
      <h1>${text.title}</h1>
      ${passkeyButton({ kind: 'sign-in', options: '/dashboard/sign-in/passkey/options', verify: '/dashboard/sign-in/passkey', csrf: view.csrf, label: 'Use a passkey' })}
      ${emailCodeForm(view)}
      <h2>${text.bootstrap}</h2>
      <form method="post" action="${text.action}" novalidate>
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <div class="field ${view.error ? 'invalid' : ''}">
          <label for="${text.field}">${text.label}</label>
          <input
            type="password"
            id="${text.field}"
            name="${text.field}"
            autocomplete="off"
            spellcheck="false"
            required
            aria-describedby="${text.field}-hint${view.error ? ` ${errorId}` : ''}"
            ${view.error ? html`aria-invalid="true" autofocus` : ''}
          />
          <p class="hint" id="${text.field}-hint">${text.hint}</p>
          ${view.error ? html`<p class="field-error" id="${errorId}">${view.error}</p>` : ''}
        </div>
        <button type="submit" class="secondary">Sign in</button>
      </form>
      <p class="aside"><a href="${text.other.href}">${text.other.label}</a></p>
    </section>`,
  });
}

/**
 * What a sign-in link opens: a button, not a session. Mail scanners and link previews fetch links;
 * only a person's click (a same-origin POST with the form token) signs in.
 */
export function signInLinkPage(view: { token: string; merchantName: string; csrf: string }): Html {
  return dashboardLayout({
    title: 'Sign in',
    body: html`<section class="panel narrow">
      <h1>Sign in as ${view.merchantName}</h1>
      <p class="lead">This link was printed by the operator CLI and works for ten minutes.</p>
      <form method="post" action="/dashboard/link">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <input type="hidden" name="token" value="${view.token}" />
        <button type="submit">Continue to the dashboard</button>
      </form>
    </section>`,
  });
}
