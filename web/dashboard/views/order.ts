import { html } from 'hono/html';
import type { Order } from '../../../core/orders/order-schema.js';
import { DELIVERY_ERROR_WORDS } from '../../../core/outbound/delivery-errors.js';
import { formatMoney, formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';
import { replayButton } from './settings-page.js';

/** What the refund form was given and what came of it. */
export interface RefundFormState {
  /** As typed, in major units (`10.00`). */
  amount?: string;
  reason?: string;
  errors?: Partial<Record<'amount' | 'reason' | 'form', string>>;
  /** The refund just asked for, said above the form. */
  done?: { amount: number; status: string; failureCode: string | null };
  /** Fresh per rendering of the form: a double submit refunds once. */
  idempotencyKey: string;
}

export interface OrderView {
  order: Order;
  csrf: string;
  refund: RefundFormState;
  /** Said in the timeline after a replay. */
  /** `said`: what the replay did at each endpoint, in words (core/webhooks/replay.ts). */
  replayed?: { eventId: string; said?: string[]; error?: string };
  /** The capture and void forms of an authorized order, after a post. */
  capture?: CaptureFormState;
}

/** What the capture form was given and what came of a capture or a void. */
export interface CaptureFormState {
  /** As typed, in major units; empty captures the whole authorized amount. */
  amount?: string;
  errors?: Partial<Record<'amount' | 'form', string>>;
  /** Said above the forms once the processor answered, or that it is still on its way. */
  done?: string;
}

const EVENT_TITLES: Record<string, string> = {
  order_created: 'Paid',
  order_updated: 'Updated',
  order_cancelled: 'Cancelled by the customer',
  order_abandoned: 'Abandoned (the session expired unpaid)',
  order_refunded: 'Refunded',
};

/**
 * A refund or an event still under way: the timeline asks again until it settles. A succeeded refund
 * whose `order_refunded` is not recorded yet counts too: the event is written just after the refund.
 */
export function orderSettling(order: Order): boolean {
  const succeeded = order.refunds.filter((r) => r.status === 'succeeded').length;
  const announced = order.webhooks.filter((w) => w.event === 'order_refunded').length;
  return order.refunds.some((r) => r.status === 'pending') || order.webhooks.some((w) => w.status === 'pending') || succeeded > announced;
}

function attemptLine(a: Order['webhooks'][number]['attempts'][number]): Html {
  // A failure in our words only (core/outbound/delivery-errors.ts); without an error or a status, it is still under way.
  const result = a.responseStatus !== null ? `HTTP ${a.responseStatus}` : a.error ? `no answer: ${DELIVERY_ERROR_WORDS[a.error]}` : 'no answer yet';
  return html`<li>
    ${formatTime(a.attemptedAt)}: ${result}${a.durationMs !== null ? ` in ${a.durationMs} ms` : ''}
    ${a.responseExcerpt ? html`<pre class="excerpt">${a.responseExcerpt}</pre>` : ''}
  </li>`;
}

/** `rank` orders entries of the same instant: creation, then events in sequence, then refunds. */
type Entry = { at: string; rank: number; body: Html };

/**
 * What happened to the order, oldest first: its creation, every webhook event (the status it
 * announced, its delivery and each attempt with the endpoint's answer) and every refund.
 */
export function timelineSection(view: OrderView, oob = false): Html {
  const { order } = view;
  const path = `/dashboard/orders/${encodeURIComponent(order.cartId)}/timeline`;
  const entries: Entry[] = [
    {
      at: order.createdAt,
      rank: 0,
      body: html`<h3>Created</h3>
        <p class="muted">${formatTime(order.createdAt)}</p>`,
    },
    ...order.webhooks.map((w) => ({
      at: w.createdAt,
      rank: w.sequence,
      body: html`<h3>
          ${EVENT_TITLES[w.event] ?? words(w.event)} <code>${w.event}</code>
          <span class="badge-status status-${w.status}" data-event="${w.event}" data-delivery="${w.status}">${words(w.status)}</span>
        </h3>
        <p class="muted">${formatTime(w.createdAt)}, event <code>${w.eventId}</code></p>
        ${
          w.attempts.length
            ? html`<ul class="attempts" aria-label="Delivery attempts">
                ${w.attempts.map(attemptLine)}
              </ul>`
            : ''
        }
        ${replayButton(w.eventId, view.csrf, 'timeline', `/dashboard/orders/${encodeURIComponent(order.cartId)}/events/${encodeURIComponent(w.eventId)}/replay`)}`,
    })),
    ...order.refunds.map((r) => ({
      at: r.createdAt,
      rank: Number.MAX_SAFE_INTEGER,
      body: html`<h3>
          Refund of ${formatMoney(r.amount, order.currency)}
          <span class="badge-status status-${r.status}" data-refund="${r.status}">${words(r.status)}</span>
        </h3>
        <p class="muted">
          ${formatTime(r.createdAt)}${r.reason ? html`, reason: ${r.reason}` : ''}${r.failureCode ? html`, failed: <code>${r.failureCode}</code>` : ''}
        </p>`,
    })),
  ].sort((a, b) => a.at.localeCompare(b.at) || a.rank - b.rank);
  const polling = orderSettling(order) ? html`hx-get="${path}" hx-trigger="every 2s" hx-swap="outerHTML"` : '';
  return html`<section id="timeline" class="panel" aria-labelledby="timeline-title" ${polling} ${oob ? html`hx-swap-oob="true"` : ''}>
    <h2 id="timeline-title">Timeline</h2>
    ${
      view.replayed
        ? html`<p class="${view.replayed.error ? 'alert' : 'notice'}" role="status">
            ${view.replayed.error ?? html`Event <code>${view.replayed.eventId}</code>: ${(view.replayed.said ?? []).join('; ')}.`}
          </p>`
        : ''
    }
    <ol class="timeline">
      ${entries.map((e) => html`<li>${e.body}</li>`)}
    </ol>
  </section>`;
}

/** Why it matters is said where it is shown: a public cart may be anyone's (create-cart needs only the platformUuid). */
function provenanceText(createdWith: Order['createdWith']): string {
  return createdWith === 'api_key' ? 'your API key' : 'the public create-cart, without your API key: fulfil it only if you created this cart yourself';
}

function factsSection(order: Order, oob = false): Html {
  return html`<section id="facts" class="panel" aria-labelledby="facts-title" ${oob ? html`hx-swap-oob="true"` : ''}>
    <h2 id="facts-title">Order</h2>
    <dl class="facts">
      <dt>Status</dt>
      <dd><span class="badge-status status-${order.status}" data-order-status="${order.status}">${words(order.status)}</span></dd>
      <dt>Amount</dt>
      <dd>${formatMoney(order.amount, order.currency)}</dd>
      <dt>Refunded</dt>
      <dd data-refunded-total="${order.refundedTotal}">${formatMoney(order.refundedTotal, order.currency)}</dd>
      <dt>Card</dt>
      <dd>${order.payment ? `${order.payment.brand} •••• ${order.payment.last4}` : 'none'}</dd>
      ${
        order.failureCode
          ? html`<dt>Failure</dt>
              <dd><code>${order.failureCode}</code></dd>`
          : ''
      }
      ${
        order.dispute
          ? html`<dt>Dispute</dt>
              <dd data-dispute-status="${order.dispute.status}">
                <span class="badge-status">${words(order.dispute.status)}</span>: ${formatMoney(order.dispute.amount, order.currency)},
                ${words(order.dispute.reason)}, evidence due by ${formatTime(order.dispute.evidenceDueBy)}
              </dd>`
          : ''
      }
      ${
        order.earlyFraudWarningAt
          ? html`<dt>Fraud warning</dt>
              <dd data-early-fraud-warning>The card’s issuer reported this payment as likely fraudulent (${formatTime(order.earlyFraudWarningAt)})</dd>`
          : ''
      }
      <dt>Created</dt>
      <dd>${formatTime(order.createdAt)}</dd>
      <dt>Created with</dt>
      <dd data-created-with="${order.createdWith}">${provenanceText(order.createdWith)}</dd>
      ${
        order.paymentLinkId
          ? html`<dt>Payment link</dt>
              <dd data-payment-link="${order.paymentLinkId}">From payment link <code>${order.paymentLinkId}</code></dd>`
          : ''
      }
      <dt>Session ends</dt>
      <dd>${formatTime(order.expiresOn)}</dd>
      ${Object.entries(order.extra).map(
        ([k, v]) =>
          html`<dt>${k}</dt>
            <dd>${v}</dd>`,
      )}
    </dl>
    <h3 class="items-title">Items</h3>
    <ul class="items">
      ${order.items.map(
        (item) =>
          html`<li class="item">
            <div class="item-text">
              <p class="item-title">${item.title}</p>
              ${item.variantOptions?.length ? html`<p class="item-variants">${item.variantOptions.join(', ')}</p>` : ''}
              <p class="item-quantity">× ${item.quantity}</p>
            </div>
            <p class="item-price">${formatMoney(item.price * item.quantity, order.currency)}</p>
          </li>`,
      )}
    </ul>
  </section>`;
}

const REFUNDABLE = new Set(['paid', 'partially_refunded']);

export function refundSection(view: OrderView, oob = false): Html {
  const { order, refund } = view;
  const action = `/dashboard/orders/${encodeURIComponent(order.cartId)}/refunds`;
  const errors = refund.errors ?? {};
  const remaining = order.amount - order.refundedTotal;
  const field = (name: 'amount' | 'reason') =>
    errors[name]
      ? html`aria-invalid="true" autofocus aria-describedby="refund-${name}-error${name === 'amount' ? ' refund-amount-hint' : ''}"`
      : name === 'amount'
        ? html`aria-describedby="refund-amount-hint"`
        : '';
  return html`<section id="refund" class="panel" aria-labelledby="refund-title" ${oob ? html`hx-swap-oob="true"` : ''}>
    <h2 id="refund-title">Refund</h2>
    ${
      refund.done
        ? html`<p class="${refund.done.status === 'failed' ? 'alert' : 'notice'}" role="status">
            ${
              refund.done.status === 'failed'
                ? `The refund of ${formatMoney(refund.done.amount, order.currency)} failed (${refund.done.failureCode ?? 'declined'}); nothing was refunded.`
                : refund.done.status === 'succeeded'
                  ? `Refunded ${formatMoney(refund.done.amount, order.currency)}.`
                  : `The refund of ${formatMoney(refund.done.amount, order.currency)} is on its way; the timeline shows when it is done.`
            }
          </p>`
        : ''
    }
    ${errors.form ? html`<p class="alert" role="alert">${errors.form}</p>` : ''}
    ${
      REFUNDABLE.has(order.status) || errors.amount
        ? html`<form method="post" action="${action}" hx-post="${action}" hx-target="#refund" hx-swap="outerHTML">
            <input type="hidden" name="csrf" value="${view.csrf}" />
            <input type="hidden" name="idempotencyKey" value="${refund.idempotencyKey}" />
            <div class="field ${errors.amount ? 'invalid' : ''}">
              <label for="refund-amount">Amount (${order.currency})</label>
              <input type="text" inputmode="decimal" id="refund-amount" name="amount" value="${refund.amount ?? ''}" autocomplete="off" ${field('amount')} />
              <p class="hint" id="refund-amount-hint">Up to ${formatMoney(remaining, order.currency)}.</p>
              ${errors.amount ? html`<p class="field-error" id="refund-amount-error">${errors.amount}</p>` : ''}
            </div>
            <div class="field ${errors.reason ? 'invalid' : ''}">
              <label for="refund-reason">Reason (optional, sent in order_refunded)</label>
              <input type="text" id="refund-reason" name="reason" value="${refund.reason ?? ''}" autocomplete="off" ${field('reason')} />
              ${errors.reason ? html`<p class="field-error" id="refund-reason-error">${errors.reason}</p>` : ''}
            </div>
            <button type="submit">Refund</button>
          </form>`
        : html`<p class="lead">${order.status === 'refunded' ? 'This order is fully refunded.' : 'Only a paid order can be refunded.'}</p>`
    }
  </section>`;
}

/**
 * An authorized order's Capture form (all, or part: the rest of the hold is released) and Void
 * button; plain forms, which htmx enhances as it does the refund form.
 */
export function captureSection(view: OrderView): Html {
  const { order } = view;
  const capture = view.capture ?? {};
  const errors = capture.errors ?? {};
  // An empty placeholder keeps the htmx target when the order was never authorized.
  if (order.status !== 'authorized' && !capture.done && !errors.form && !errors.amount) return html`<section id="capture" hidden></section>`;
  const base = `/dashboard/orders/${encodeURIComponent(order.cartId)}`;
  const enhance = (action: string) => html`hx-post="${action}" hx-target="#capture" hx-swap="outerHTML"`;
  return html`<section id="capture" class="panel" aria-labelledby="capture-title">
    <h2 id="capture-title">Capture</h2>
    ${capture.done ? html`<p class="notice" role="status">${capture.done}</p>` : ''}
    ${errors.form ? html`<p class="alert" role="alert" id="capture-form-error">${errors.form}</p>` : ''}
    ${
      order.status === 'authorized'
        ? html`<form method="post" action="${base}/capture" ${enhance(`${base}/capture`)}>
              <input type="hidden" name="csrf" value="${view.csrf}" />
              <div class="field ${errors.amount ? 'invalid' : ''}">
                <label for="capture-amount">Amount (${order.currency}, optional)</label>
                <input
                  type="text"
                  inputmode="decimal"
                  id="capture-amount"
                  name="amount"
                  value="${capture.amount ?? ''}"
                  autocomplete="off"
                  aria-describedby="capture-amount-hint${errors.amount ? ' capture-amount-error' : ''}"
                  ${errors.amount ? html`aria-invalid="true" autofocus` : ''}
                />
                <p class="hint" id="capture-amount-hint">Empty captures all ${formatMoney(order.amount, order.currency)} authorized; less releases the rest.</p>
                ${errors.amount ? html`<p class="field-error" id="capture-amount-error">${errors.amount}</p>` : ''}
              </div>
              <button type="submit">Capture</button>
            </form>
            <form method="post" action="${base}/void" ${enhance(`${base}/void`)}>
              <input type="hidden" name="csrf" value="${view.csrf}" />
              <p class="hint">Void releases the whole hold and cancels the order.</p>
              <button type="submit" class="secondary">Void</button>
            </form>`
        : ''
    }
  </section>`;
}

/** The parts a capture or void changes: its answer, the refund form, and (out of band) the facts and the timeline. */
export function afterCapture(view: OrderView): Html {
  return html`${captureSection(view)} ${refundSection(view, true)} ${factsSection(view.order, true)} ${timelineSection(view, true)}`;
}

/** The parts a refund changes: the form's answer, and (out of band) the facts and the timeline. */
export function afterRefund(view: OrderView): Html {
  return html`${refundSection(view)} ${factsSection(view.order, true)} ${timelineSection(view, true)}`;
}

export function orderPage(view: OrderView & { who: string }): Html {
  return dashboardLayout({
    title: `Order ${view.order.cartId}`,
    signedIn: { who: view.who, role: 'merchant', section: 'orders', csrf: view.csrf },
    body: html`<p class="aside"><a href="/dashboard/orders">All orders</a></p>
      <h1>Order <code>${view.order.cartId}</code></h1>
      <div class="order-grid">
        <div class="stack">${factsSection(view.order)} ${timelineSection(view)}</div>
        <div class="stack">${captureSection(view)} ${refundSection(view)}</div>
      </div>`,
  });
}
