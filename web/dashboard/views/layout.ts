import { html } from 'hono/html';
import { pageMeta, type Html } from '../../checkout/views/layout.js';
import { assetIntegrity, assetPath } from '../../assets.js';

export type { Html };

type Section = 'insights' | 'orders' | 'links' | 'webhooks' | 'keys' | 'audit' | 'people' | 'merchants' | 'carts' | 'integrity' | 'tokens';

const MERCHANT_NAV: Array<{ section: Section; href: string; label: string }> = [
  { section: 'insights', href: '/dashboard/insights', label: 'Insights' },
  { section: 'orders', href: '/dashboard/orders', label: 'Orders' },
  { section: 'links', href: '/dashboard/payment-links', label: 'Payment links' },
  { section: 'webhooks', href: '/dashboard/webhooks', label: 'Webhooks' },
  { section: 'keys', href: '/dashboard/api-keys', label: 'API keys' },
  { section: 'audit', href: '/dashboard/audit', label: 'Audit log' },
  { section: 'people', href: '/dashboard/people', label: 'People' },
];
const OPERATOR_NAV: Array<{ section: Section; href: string; label: string }> = [
  { section: 'merchants', href: '/dashboard/operator', label: 'Merchants' },
  { section: 'carts', href: '/dashboard/operator/carts', label: 'Carts' },
  { section: 'insights', href: '/dashboard/operator/insights', label: 'Insights' },
  { section: 'audit', href: '/dashboard/operator/audit', label: 'Audit log' },
  { section: 'integrity', href: '/dashboard/operator/integrity', label: 'Page integrity' },
  { section: 'people', href: '/dashboard/operator/people', label: 'Operators' },
  { section: 'tokens', href: '/dashboard/operator/tokens', label: 'Your tokens' },
];

export interface Shell {
  title: string;
  body: Html;
  /** Signed in: who (shown in the header), which menu, the current section and the form token for "Sign out". */
  signedIn?: { who: string; role: 'merchant' | 'operator'; section?: Section; csrf: string };
  /** The page makes or uses a passkey: @simplewebauthn/browser and dashboard-passkeys.js, from our origin. */
  passkeys?: boolean;
}

/**
 * The dashboard's page: the checkout's look (checkout.css) plus its tables and menus (dashboard.css),
 * htmx from our origin and dashboard.js, no inline script or style (the same CSP). English only.
 * Every interpolated value goes through hono/html, which escapes it.
 */
export function dashboardLayout(shell: Shell): Html {
  const nav = shell.signedIn?.role === 'operator' ? OPERATOR_NAV : MERCHANT_NAV;
  return html`<!doctype html>
    <html lang="en" dir="ltr">
      <head>
        ${pageMeta()}
        <title>${shell.title} · Hosted Checkout dashboard</title>
        <link rel="stylesheet" href="${assetPath('checkout.css')}" integrity="${assetIntegrity('checkout.css')}" />
        <link rel="stylesheet" href="${assetPath('dashboard.css')}" integrity="${assetIntegrity('dashboard.css')}" />
        <script src="${assetPath('htmx.min.js')}" integrity="${assetIntegrity('htmx.min.js')}" crossorigin="anonymous" defer></script>
        <script src="${assetPath('dashboard.js')}" integrity="${assetIntegrity('dashboard.js')}" crossorigin="anonymous" defer></script>
        ${
          shell.passkeys
            ? html`<script
                  src="${assetPath('simplewebauthn-browser.js')}"
                  integrity="${assetIntegrity('simplewebauthn-browser.js')}"
                  crossorigin="anonymous"
                  defer
                ></script>
                <script
                  src="${assetPath('dashboard-passkeys.js')}"
                  integrity="${assetIntegrity('dashboard-passkeys.js')}"
                  crossorigin="anonymous"
                  defer
                ></script>`
            : ''
        }
      </head>
      <body class="dashboard">
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="dash-header">
          <p class="dash-brand">Hosted Checkout <span class="dash-brand-sub">dashboard</span></p>
          ${
            shell.signedIn
              ? html`<nav aria-label="Dashboard">
                    <ul>
                      ${nav.map(
                        (item) =>
                          html`<li><a href="${item.href}" ${item.section === shell.signedIn?.section ? html`aria-current="page"` : ''}>${item.label}</a></li>`,
                      )}
                    </ul>
                  </nav>
                  <form class="sign-out" method="post" action="/dashboard/sign-out">
                    <input type="hidden" name="csrf" value="${shell.signedIn.csrf}" />
                    <span class="dash-who">${shell.signedIn.who}</span>
                    <button type="submit" class="secondary">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main id="main" class="dash-main" tabindex="-1">${shell.body}</main>
      </body>
    </html>`;
}

/** A page that only says something: not found, refused, unavailable. */
export function dashboardMessage(title: string, message: string, link?: { href: string; label: string }): Html {
  return dashboardLayout({
    title,
    body: html`<section class="panel message" role="status">
      <h1>${title}</h1>
      <p>${message}</p>
      ${link ? html`<a class="button-link" href="${link.href}">${link.label}</a>` : ''}
    </section>`,
  });
}

export function forbiddenPage(): Html {
  return dashboardMessage('This form has expired', 'The form was not sent from this dashboard, or is too old. Reload the page and try again.', {
    href: '/dashboard',
    label: 'Back to the dashboard',
  });
}

export function notFoundPage(what = 'This page'): Html {
  return dashboardMessage('Not found', `${what} does not exist, or is not yours.`, { href: '/dashboard', label: 'Back to the dashboard' });
}

/** The guard's refusal (web/dashboard/guard.ts), in words: what was refused, to whom, and who can help. */
export function refusedPage(role: string, what: string): Html {
  const who = role === 'operator' ? 'an operator_admin' : 'an owner of this merchant';
  return dashboardMessage('Not allowed', `Your role, ${role}, does not allow this: ${what}. If you need it, ask ${who} to change your role.`, {
    href: '/dashboard',
    label: 'Back to the dashboard',
  });
}
