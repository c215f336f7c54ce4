import { randomUUID } from 'node:crypto';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { MAX_QUANTITY, PRODUCTS, formatMoney } from './catalogue.js';
import type { OrderStore, StoreOrder, WebhookRecord } from './order-store.js';

/** Every value interpolated by hono/html's `html` is HTML-escaped: the webhook data included. */
type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

function layout(title: string, body: Html, options: { refreshSeconds?: number; refreshTo?: string } = {}): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        ${
          options.refreshSeconds
            ? html`<meta http-equiv="refresh" content="${options.refreshSeconds}${options.refreshTo ? `;url=${options.refreshTo}` : ''}" />`
            : ''
        }
        <title>${title} · Demo Store</title>
        <link rel="stylesheet" href="/assets/store.css" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">Demo Store</a>
          <nav><a href="/">Shop</a> <a href="/orders">Orders</a></nav>
        </header>
        <main>${body}</main>
        <footer>A sandbox merchant of Hosted Checkout. Sandbox card 4111 1111 1111 1111, 12/30, 123; one-time code 123456.</footer>
      </body>
    </html>`;
}

export function shopPage(quantities: Record<string, number>, error?: string, embedding = false): Html {
  const total = PRODUCTS.reduce((sum, p) => sum + p.price * (quantities[p.id] ?? 0), 0);
  return layout(
    'Shop',
    html`<h1>Shop</h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/checkout" class="shop">
        <table>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col">Price</th>
              <th scope="col">Quantity</th>
            </tr>
          </thead>
          <tbody>
            ${PRODUCTS.map(
              (p) =>
                html`<tr id="${p.id}">
                  <td><strong>${p.title}</strong><br /><small>${p.description}</small></td>
                  <td>${formatMoney(p.price)}</td>
                  <td>
                    <label class="visually-hidden" for="qty-${p.id}">Quantity of ${p.title}</label>
                    <input id="qty-${p.id}" name="qty-${p.id}" type="number" min="0" max="${MAX_QUANTITY}" value="${quantities[p.id] ?? 0}" />
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        <p class="total">Total <output data-testid="total">${formatMoney(total)}</output></p>
        <p class="actions">
          <button type="submit" formmethod="get" formaction="/" class="secondary">Update total</button>
          <button type="submit">Pay with Hosted Checkout</button>
          ${embedding ? html`<button type="submit" name="mode" value="embedded" class="secondary">Pay without leaving the store</button>` : ''}
        </p>
      </form>`,
  );
}

const WAITING = new Set(['awaiting_payment', 'processing']);

/**
 * Where the checkout sends the customer back (successUrl and failureUrl): it never decides the outcome.
 * A payment the webhook says failed gets **Try another card**: a retry of the same cart (server.ts).
 */
/**
 * The order paid inside the store's own page: the checkout in a frame that embed.js mounts, pinned by
 * its integrity (scripts/start.ts hands the store the value of the running checkout's file).
 */
export function payHerePage(order: StoreOrder, checkout: { scriptUrl: string; integrity: string }): Html {
  return layout(
    `Pay for order ${order.id}`,
    html`<h1>Pay for order ${order.id}</h1>
      <p>${formatMoney(order.total, order.currency)}, paid without leaving the store.</p>
      <p><a href="/">Back to the shop</a></p>
      <div id="checkout" data-cart-id="${order.cartId ?? ''}"></div>
      <p><a href="/orders/${order.id}">Order status</a></p>
      <script src="${checkout.scriptUrl}" integrity="${checkout.integrity}" crossorigin="anonymous"></script>
      <script src="/assets/pay-here.js"></script>`,
  );
}

export function orderPage(order: StoreOrder, returned: string | undefined, retryProblem?: string): Html {
  const waiting = !order.fulfilledAt && WAITING.has(order.status);
  let message: Html;
  if (order.fulfilledAt && shipsLater(order))
    message = html`<p class="ok" role="status" data-testid="outcome">
      Shipped and charged: the capture was confirmed by the <code>order_updated</code> webhook (<code>paid</code>), and your order is fulfilled.
    </p>`;
  else if (order.fulfilledAt)
    message = html`<p class="ok" role="status" data-testid="outcome">Payment confirmed by the <code>order_created</code> webhook: your order is fulfilled.</p>`;
  else if (order.cartId === null)
    message = html`<p class="error" role="alert" data-testid="outcome">The checkout could not be opened: ${order.checkoutError ?? ''}</p>`;
  else if (waiting)
    message = html`<p class="waiting" role="status" data-testid="outcome">
      ${returned === 'success' ? 'The checkout says the payment went through. ' : ''}Waiting for the payment confirmation webhook (<code>order_created</code>)
      before fulfilling; this page refreshes itself.
    </p>`;
  else if (order.status === 'authorized')
    message = html`<p class="ok" role="status" data-testid="outcome">
      Your card is authorized for ${formatMoney(order.total, order.currency)}, not charged yet: the order is awaiting shipment, and you are charged when it
      ships.
    </p>`;
  else message = html`<p class="error" role="status" data-testid="outcome">Not paid: the last webhook says <strong>${order.status}</strong>.</p>`;
  const retryable = order.cartId !== null && order.status === 'failed' && !order.fulfilledAt;
  return layout(
    `Order ${order.id}`,
    html`<h1>Order <code>${order.id}</code></h1>
      ${message}
      ${order.cartId === null ? html`<form method="post" action="/orders/${order.id}/pay"><button type="submit">Try the checkout again</button></form>` : ''}
      ${retryProblem ? html`<p class="error" role="alert" data-testid="retry-error">${retryProblem}</p>` : ''}
      ${retryable ? html`<form method="post" action="/orders/${order.id}/retry"><button type="submit">Try another card</button></form>` : ''}
      ${orderDetails(order)}
      <p><a href="/orders">All orders</a></p>`,
    waiting ? { refreshSeconds: 2 } : {},
  );
}

export function ordersPage(store: OrderStore, problems: Record<string, string> = {}): Html {
  const orders = store.list();
  // Until each refund's order_refunded arrives (or the refund failed), so the page shows it without a click.
  const refreshing = orders.some((o) => o.refunds.some((r) => !r.confirmedAt && r.status !== 'failed'));
  return layout(
    'Orders',
    html`<h1>Orders</h1>
      <form method="post" action="/logout"><button type="submit">Sign out</button></form>
      ${orders.length === 0 ? html`<p>No orders yet: <a href="/">buy something</a>.</p>` : ''}
      ${orders.map(
        (order) =>
          html`<section class="order" id="${order.id}" aria-labelledby="${order.id}-title">
            <h2 id="${order.id}-title"><a href="/orders/${order.id}">${order.id}</a></h2>
            ${orderDetails(order)} ${order.status === 'authorized' ? captureForm(order, problems[order.id]) : refundForm(order, problems[order.id])}
          </section>`,
      )}
      ${journalSection(store)} ${unmatchedSection(store)}`,
    // To the page without its #order fragment: a refresh to the same URL with one would only scroll.
    refreshing ? { refreshSeconds: 3, refreshTo: '/orders' } : {},
  );
}

/** A ship-later order: its order_created said the card was authorized, to be captured when it ships. */
function shipsLater(order: StoreOrder): boolean {
  return order.webhooks.some((w) => w.verified && w.event === 'order_created' && w.status === 'authorized');
}

function orderDetails(order: StoreOrder): Html {
  return html`<dl class="facts">
      <dt>Status</dt>
      <dd data-testid="status">${order.status}</dd>
      <dt>Fulfilled</dt>
      <dd data-testid="fulfilled">${order.fulfilledAt ? `yes, ${order.fulfilledAt}` : 'no'}</dd>
      <dt>Total</dt>
      <dd>${formatMoney(order.total, order.currency)}${order.refundedTotal ? ` (refunded ${formatMoney(order.refundedTotal, order.currency)})` : ''}</dd>
      <dt>Cart</dt>
      <dd><code>${order.cartId ?? '—'}</code></dd>
      ${
        order.earlierCartIds.length
          ? html`<dt>Earlier carts (failed, retried)</dt>
              <dd data-testid="earlier-carts">${order.earlierCartIds.map((id, i) => html`${i ? ', ' : ''}<code>${id}</code>`)}</dd>`
          : ''
      }
      <dt>Created</dt>
      <dd>${order.createdAt}</dd>
    </dl>
    <ul class="lines">
      ${order.items.map((i) => html`<li>${i.quantity} × ${i.title} (${formatMoney(i.price, order.currency)})</li>`)}
    </ul>
    ${
      order.refunds.length
        ? html`<table class="refunds fold">
            <caption>
              Refunds requested
            </caption>
            <thead>
              <tr>
                <th scope="col">Refund</th>
                <th scope="col">Amount</th>
                <th scope="col">Reason</th>
                <th scope="col">Status</th>
                <th scope="col">Requested at</th>
                <th scope="col">Confirmed by order_refunded</th>
              </tr>
            </thead>
            <tbody>
              ${order.refunds.map(
                (r) =>
                  html`<tr>
                    <td data-label="Refund"><code>${r.refundId ?? '—'}</code></td>
                    <td data-label="Amount">${formatMoney(r.amount, order.currency)}</td>
                    <td data-label="Reason">${r.reason ?? ''}</td>
                    <td data-label="Status">${r.status}</td>
                    <td data-label="Requested at">${r.requestedAt}</td>
                    <td data-label="Confirmed by order_refunded">${r.confirmedAt ?? (r.status === 'failed' ? '—' : 'waiting for the webhook')}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : ''
    }
    <table class="webhooks fold" data-testid="webhooks">
      <caption>
        Webhooks received
      </caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Sequence</th>
          <th scope="col">Status</th>
          <th scope="col">Verified</th>
          <th scope="col">Received at</th>
          <th scope="col">Deliveries</th>
        </tr>
      </thead>
      <tbody>
        ${
          order.webhooks.length === 0
            ? html`<tr>
                <td colspan="6">None yet.</td>
              </tr>`
            : bySequence(order).map(
                (w) =>
                  html`<tr class="${w.verified ? '' : 'rejected'}">
                    <td data-label="Event">${w.event}</td>
                    <td data-label="Sequence">${w.sequence ?? '—'}</td>
                    <td data-label="Status">${w.status ?? '—'}</td>
                    <td data-label="Verified">${w.verified ? 'yes' : `no: ${w.note ?? ''}`}</td>
                    <td data-label="Received at">${w.receivedAt}</td>
                    <td data-label="Deliveries">${w.deliveries}</td>
                  </tr>`,
              )
        }
      </tbody>
    </table>`;
}

/** Cart by cart (the earlier, failed ones first), each in its own order whatever order they arrived in; unverified ones (no trusted sequence) last. */
function bySequence(order: StoreOrder): WebhookRecord[] {
  const carts = [...order.earlierCartIds, order.cartId];
  const cartRank = (w: WebhookRecord) => (w.sequence === null ? Infinity : carts.indexOf(w.cartId ?? order.cartId));
  return [...order.webhooks].sort((a, b) => cartRank(a) - cartRank(b) || (a.sequence ?? Infinity) - (b.sequence ?? Infinity));
}

/** A ship-later order is only authorized: shipping it captures the payment. */
function captureForm(order: StoreOrder, problem: string | undefined): Html {
  return html`<form method="post" action="/orders/${order.id}/capture" class="capture">
    ${problem ? html`<p class="error" role="alert" data-testid="capture-error">${problem}</p>` : ''}
    <p>Authorized ${formatMoney(order.total, order.currency)}, not charged yet: awaiting shipment.</p>
    <button type="submit">Ship and capture</button>
  </form>`;
}

function refundForm(order: StoreOrder, problem: string | undefined): Html {
  if (!order.fulfilledAt || !order.cartId) return html``;
  const refundable = order.total - order.refundedTotal;
  if (refundable <= 0 && !problem) return html`<p>Fully refunded.</p>`;
  // A fresh key per form shown: submitting this form twice asks for one refund, not two.
  const key = randomUUID();
  return html`<form method="post" action="/orders/${order.id}/refunds" class="refund">
    ${problem ? html`<p class="error" role="alert" data-testid="refund-error">${problem}</p>` : ''}
    <input type="hidden" name="idempotencyKey" value="${key}" />
    <label for="amount-${order.id}">Refund amount (${order.currency})</label>
    <input id="amount-${order.id}" name="amount" inputmode="decimal" required placeholder="${formatMoney(refundable, order.currency)}" />
    <label for="reason-${order.id}">Reason</label>
    <input id="reason-${order.id}" name="reason" maxlength="200" />
    <button type="submit">Refund</button>
  </form>`;
}

function journalSection(store: OrderStore): Html {
  const journal = store.journal();
  return html`<section aria-labelledby="journal-title">
    <h2 id="journal-title">Accounting journal</h2>
    <p>
      Booked by the store's second webhook endpoint, <code>/webhooks/accounting</code>, which receives <code>order_refunded</code> only, signed with its own
      secret.
    </p>
    ${
      journal.length === 0
        ? html`<p>No refund booked yet.</p>`
        : html`<ul data-testid="journal">
            ${journal.map((e) => html`<li>${formatMoney(-e.amount, e.currency)} refund <code>${e.refundId}</code> of cart <code>${e.cartId}</code>, booked ${e.bookedAt}</li>`)}
          </ul>`
    }
  </section>`;
}

function unmatchedSection(store: OrderStore): Html {
  const unmatched = store.unmatched();
  if (unmatched.length === 0) return html``;
  return html`<section>
    <h2>Webhooks for carts without an order here</h2>
    <p>Verified and acknowledged (a cart created outside this shop, e.g. with the printed curl), kept for reconciliation.</p>
    <ul>
      ${unmatched.map((w) => html`<li><code>${w.cartId}</code>: ${w.event} #${w.sequence ?? '—'} (${w.status ?? ''}) at ${w.receivedAt}</li>`)}
    </ul>
  </section>`;
}

export function loginPage(next: string, error?: string): Html {
  return layout(
    'Sign in',
    html`<h1>Store owner sign-in</h1>
      <p>The orders and refunds are the store owner's. <code>npm start</code> prints the password (kept in <code>.data/demo-store-owner-password</code>).</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <form method="post" action="/login">
        <input type="hidden" name="next" value="${next}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>`,
  );
}

export function problemPage(title: string, message: string): Html {
  return layout(
    title,
    html`<h1>${title}</h1>
      <p class="error" role="alert">${message}</p>
      <p><a href="/">Back to the shop</a></p>`,
  );
}
