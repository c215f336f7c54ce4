import { html } from 'hono/html';
import type { PaymentLink, PaymentLinkStatus } from '../../../core/links/payment-link-schema.js';
import { cartTotal } from '../../../core/money.js';
import { LINK_FORM_FIELDS, LINK_FORM_LABELS, type LinkForm, type LinkFormErrors, type LinkFormField } from '../payment-link-form.js';
import { formatMoney, formatTime } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { qrCode } from './qr-code.js';
import { cellLabel, textField } from './settings-page.js';

/** What the last post did: a link created or closed, or the form refused (kept as typed, with its errors). */
export interface PaymentLinksResult {
  created?: string;
  closed?: string;
  closeError?: string;
  form?: LinkForm;
  errors?: LinkFormErrors;
}

export interface PaymentLinksView {
  links: PaymentLink[];
  csrf: string;
  form: LinkForm;
  result: PaymentLinksResult;
}

/** The statuses in the merchant's words; each but active answers visits with the "no longer available" page. */
const STATUS_LABELS: Record<PaymentLinkStatus, string> = { open: 'Active', closed: 'Closed', expired: 'Expired', used_up: 'Sold out' };

const COLUMNS = ['Link', 'For', 'Status', 'Visits', 'Paid', 'Max uses', 'Expires', 'Created'] as const;

/** A form that swaps the whole of the links view with htmx (the list and the form change together), and posts as a plain form without it. */
const form = (action: string, csrf: string, body: Html, attributes: Html | string = '') =>
  html`<form method="post" action="${action}" hx-post="${action}" hx-target="#payment-links" hx-swap="outerHTML" ${attributes}>
    <input type="hidden" name="csrf" value="${csrf}" />${body}
  </form>`;

function linkRow(link: PaymentLink, qr: Html, csrf: string): Html {
  const { cart } = link.cartObject;
  const what = cart.items.map((item) => item.title).join(', ');
  return html`<tr data-link-id="${link.id}">
    <td>${cellLabel('Link')}<code class="link-url">${link.url}</code>${qr}</td>
    <td>${cellLabel('For')}${what}, ${formatMoney(cartTotal(cart.items), cart.currency)}</td>
    <td>
      ${cellLabel('Status')}<span class="badge-status ${link.status === 'open' ? 'status-ok' : 'status-bad'}" data-link-status="${link.status}"
        >${STATUS_LABELS[link.status]}</span
      >
    </td>
    <td>${cellLabel('Visits')}<span data-link-visits>${link.visits}</span></td>
    <td>${cellLabel('Paid')}<span data-link-paid>${link.paid}</span></td>
    <td>${cellLabel('Max uses')}${link.maxUses ?? html`<span class="muted">no limit</span>`}</td>
    <td>${cellLabel('Expires')}${link.expiresAt ? formatTime(link.expiresAt) : html`<span class="muted">never</span>`}</td>
    <td>${cellLabel('Created')}${formatTime(link.createdAt)}</td>
    <td>
      ${
        link.status === 'open'
          ? form(
              `/dashboard/payment-links/${encodeURIComponent(link.id)}/close`,
              csrf,
              html`<button type="submit" class="small secondary" aria-label="Close ${what} link, ${link.url}">Close</button>`,
              // Closing cannot be undone and every later visit answers 410: asked first, where htmx runs.
              html`hx-confirm="Close the link for ${what}? Customers who open it from now on see that it is no longer available, and it cannot be opened again."`,
            )
          : ''
      }
    </td>
  </tr>`;
}

async function listSection(view: PaymentLinksView): Promise<Html> {
  const { result } = view;
  const qrs = await Promise.all(view.links.map((link) => qrCode(link.url)));
  return html`<section class="panel" aria-labelledby="links-title">
    <h2 id="links-title">Your links</h2>
    <p class="lead">
      Each visit of a link opens a checkout session of its own. Closed, expired and sold-out links show customers that they are no longer available.
    </p>
    ${result.created ? html`<p class="notice" role="status">Created <code>${result.created}</code>: share it, or print its QR code.</p>` : ''}
    ${result.closed ? html`<p class="notice" role="status">Closed <code>${result.closed}</code>: new visits see that it is no longer available.</p>` : ''}
    ${result.closeError ? html`<p class="alert" role="status">${result.closeError}</p>` : ''}
    ${
      view.links.length === 0
        ? html`<p class="muted">No payment link yet: create one below.</p>`
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Payment links table">
            <table class="reflow links-table">
              <thead>
                <tr>
                  ${COLUMNS.map((column) => html`<th scope="col">${column}</th>`)}
                  <th scope="col"><span class="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${view.links.map((link, i) => linkRow(link, qrs[i]!, view.csrf))}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

const HINTS: Record<LinkFormField, string> = {
  title: 'What the customer buys, as the checkout page shows it.',
  amount: 'The price in the currency below, such as 19.99.',
  currency: 'An ISO 4217 code, such as EUR.',
  country: 'An ISO 3166-1 code, such as FR: the checkout page speaks its language.',
  storeUrl: 'Your store’s https address: the checkout page links back to it.',
  image: 'A picture of the item (https). Empty: your store’s favicon.',
  successUrl: 'Where the customer goes after paying.',
  failureUrl: 'Where the customer goes after a failed or cancelled payment.',
  maxUses: 'The link closes once this many sessions are paid. Empty: no limit.',
  expiresOn: 'A date such as 2030-12-31: the link closes at the end of that day (UTC). Empty: never.',
};
const OPTIONAL: ReadonlySet<LinkFormField> = new Set(['image', 'maxUses', 'expiresOn']);
const INPUT_EXTRAS: Partial<Record<LinkFormField, Html>> = {
  amount: html`inputmode="decimal" autocomplete="off"`,
  currency: html`maxlength="3" autocapitalize="characters" autocomplete="off"`,
  country: html`maxlength="3" autocapitalize="characters" autocomplete="off"`,
  storeUrl: html`inputmode="url" autocomplete="url"`,
  image: html`inputmode="url" autocomplete="off"`,
  successUrl: html`inputmode="url" autocomplete="off"`,
  failureUrl: html`inputmode="url" autocomplete="off"`,
  maxUses: html`inputmode="numeric" autocomplete="off"`,
  expiresOn: html`placeholder="YYYY-MM-DD" autocomplete="off"`,
};

function createSection(view: PaymentLinksView): Html {
  const errors = view.result.errors ?? {};
  const field = (name: LinkFormField) =>
    textField({
      id: `link-${name}`,
      name,
      label: `${LINK_FORM_LABELS[name]}${OPTIONAL.has(name) ? ' (optional)' : ''}`,
      value: view.form[name],
      extra: INPUT_EXTRAS[name] ?? html`autocomplete="off"`,
      hint: HINTS[name],
      errors: errors[name],
    });
  return html`<section class="panel" aria-labelledby="new-link-title">
    <h2 id="new-link-title">New payment link</h2>
    <p class="lead">One item at one price. For more items, use the merchant API (<code>POST /v2/merchant/payment-links</code>).</p>
    ${errors.form ? html`<div class="alert" role="alert">${errors.form.map((e) => html`<p>${e}</p>`)}</div>` : ''}
    ${form('/dashboard/payment-links', view.csrf, html`${LINK_FORM_FIELDS.map(field)}<button type="submit">Create link</button>`)}
  </section>`;
}

/** The list and the form: what htmx swaps after a post. */
export async function paymentLinksView(view: PaymentLinksView): Promise<Html> {
  return html`<div id="payment-links" class="stack">${await listSection(view)} ${createSection(view)}</div>`;
}

export async function paymentLinksPage(view: PaymentLinksView & { who: string }): Promise<Html> {
  return dashboardLayout({
    title: 'Payment links',
    signedIn: { who: view.who, role: 'merchant', section: 'links', csrf: view.csrf },
    body: html`<h1>Payment links</h1>
      ${await paymentLinksView(view)}`,
  });
}
