import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import { randomToken } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { ORDER_LIMITS, orderListQuerySchema, type Order } from '../../core/orders/order-schema.js';
import type { OrderData } from '../../core/checkout/order-model.js';
import { getOrder, listOrders, type OrderFilters } from '../../core/orders/orders.js';
import { ordersCsv } from '../../core/orders/orders-csv.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { requestRefund, RefundRefused } from '../../core/orders/request-refund.js';
import { processorCurrencies } from '../../core/checkout/processor-amounts.js';
import { AuthorizationRefused, captureOrder, voidOrder, type AuthorizationOutcome } from '../../core/orders/authorization.js';
import { authorizationHold } from '../../workflows/cart-session/client.js';
import { refundWorkflow } from '../../workflows/refund/client.js';
import { replayDeps, replayEvent, type ReplaySender } from '../../core/webhooks/replay.js';
import { boundedDeliveryRequests } from '../../workflows/webhook-delivery/client.js';
import { supportRefundLimits } from '../../core/people/people.js';
import { REFUND_LIMITED_ROLES } from './access.js';
import type { DashboardEnv } from './env.js';
import { dashboardAudit } from './audit.js';
import { manualSendRefusal, type ManualSendRefusal } from './manual-sends.js';
import { parseRefundAmount } from './refund-amount.js';
import { formatMoney } from './views/format.js';
import { partOrPage } from './respond.js';
import { notFoundPage } from './views/layout.js';
import { afterCapture, afterRefund, orderPage, timelineSection, type CaptureFormState, type OrderView, type RefundFormState } from './views/order.js';
import { ordersPage, ordersView, type OrderFilterForm, type OrdersView } from './views/orders.js';

type C = Context<DashboardEnv>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;
const TEMPORAL_DEADLINE_MS = 5_000;
/** The most orders one CSV export holds (about 10 MB). */
const CSV_MAX_ORDERS = 50_000;
/** Where the list query's fields are shown in the filter form. */
const FILTER_FIELD: Record<string, keyof OrderFilterForm> = {
  status: 'status',
  createdFrom: 'from',
  createdTo: 'to',
  extraKey: 'extraKey',
  extraValue: 'extraValue',
};

const newRefundForm = (): RefundFormState => ({ idempotencyKey: `dashboard-${randomToken(16)}` });
const FORM_KEY = /^dashboard-[A-Za-z0-9_-]{22}$/;

/** A date typed in the form (UTC days, `to` inclusive) as the list's time range; undefined when empty, null when not a date. */
function dayStart(value: string, plusDays = 0): string | undefined | null {
  if (!value) return undefined;
  const at = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  return Number.isNaN(at) ? null : new Date(at + plusDays * DAY_MS).toISOString();
}

/**
 * A merchant's orders: the list with its filters (status, creation dates, one `extra` key and value)
 * a page at a time by cursor, each order with its timeline, and the refund form. Reads through
 * core/orders/orders.ts and refunds through core/orders/request-refund.ts, as the merchant API does.
 */
export function orderRoutes(deps: { config: Config; db: Db; temporal: Temporal } & ReplaySender) {
  const { db, temporal } = deps;
  const currencies = processorCurrencies(deps.config.payments.processor);
  const refunds = { db, temporal, refundWorkflow: refundWorkflow(temporal.client, deps.config), currencies };
  const holds = { db, checkoutBaseUrl: deps.config.checkoutBaseUrl, keyring: deps.config.keyring, hold: authorizationHold(temporal.client), currencies };
  const audit = dashboardAudit(deps);
  const replays = replayDeps({ ...deps, requestDelivery: boundedDeliveryRequests(temporal, deps.config, TEMPORAL_DEADLINE_MS) });
  const app = new Hono<DashboardEnv>();
  const owner = (c: C) => {
    const merchant = c.get('merchant')!;
    return { platformUuid: merchant.platformUuid, environment: merchant.environment };
  };
  const who = async (c: C) => (await getMerchant(db, owner(c).platformUuid)).name;

  /** The list's filters as typed, checked as the merchant API checks them; `filter` is undefined when one is refused. */
  function readFilters(c: C): { filters: OrderFilterForm; errors: OrdersView['errors']; filter?: OrderFilters } {
    const q = (name: string) => c.req.query(name)?.trim() ?? '';
    const filters: OrderFilterForm = { status: q('status'), from: q('from'), to: q('to'), extraKey: q('extraKey'), extraValue: q('extraValue') };
    const errors: OrdersView['errors'] = {};
    const createdFrom = dayStart(filters.from);
    const createdTo = dayStart(filters.to, 1);
    if (createdFrom === null) errors.from = 'Enter a date, such as 2030-01-31.';
    if (createdTo === null) errors.to = 'Enter a date, such as 2030-01-31.';
    const parsed = orderListQuerySchema.safeParse({
      ...(filters.status ? { status: filters.status } : {}),
      ...(createdFrom ? { createdFrom } : {}),
      ...(createdTo ? { createdTo } : {}),
      ...(filters.extraKey ? { extraKey: filters.extraKey } : {}),
      ...(filters.extraValue ? { extraValue: filters.extraValue } : {}),
      ...(q('cursor') ? { cursor: q('cursor') } : {}),
      ...(q('limit') ? { limit: q('limit') } : {}),
    });
    for (const issue of parsed.error?.issues ?? []) {
      const name = FILTER_FIELD[String(issue.path[0])];
      if (name) errors[name] ??= `This ${issue.message}.`;
    }
    if (!parsed.success || Object.keys(errors).length > 0) return { filters, errors };
    const filter: OrderFilters = {
      ...(parsed.data.status ? { status: parsed.data.status } : {}),
      ...(parsed.data.createdFrom ? { createdFrom: new Date(parsed.data.createdFrom) } : {}),
      ...(parsed.data.createdTo ? { createdTo: new Date(parsed.data.createdTo) } : {}),
      ...(parsed.data.extraKey !== undefined && parsed.data.extraValue !== undefined
        ? { extra: { key: parsed.data.extraKey, value: parsed.data.extraValue } }
        : {}),
      ...(parsed.data.cursor ? { cursor: parsed.data.cursor } : {}),
      ...(parsed.data.limit ? { limit: parsed.data.limit } : {}),
    };
    return { filters, errors, filter };
  }

  app.get('/orders', async (c) => {
    const q = (name: string) => c.req.query(name)?.trim() ?? '';
    const { filters, errors, filter } = readFilters(c);
    const valid = filter !== undefined;
    const found = filter ? await listOrders(db, deps.config, owner(c), filter) : { orders: [], nextCursor: null };
    const next = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== ''));
    // The page size is not in the form (25 unless the URL says otherwise) but stays the same page after page.
    if (q('limit')) next.set('limit', q('limit'));
    if (found.nextCursor) next.set('cursor', found.nextCursor);
    const exportQuery = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== '')).toString();
    const view: OrdersView = {
      filters,
      errors,
      ...found,
      nextHref: found.nextCursor ? `/dashboard/orders?${next.toString()}` : null,
      exportHref: `/dashboard/orders/export.csv${exportQuery ? `?${exportQuery}` : ''}`,
    };
    return c.html(
      await partOrPage(
        c,
        () => ordersView(view),
        async () => ordersPage({ ...view, who: await who(c), csrf: c.get('csrf') }),
      ),
      valid ? 200 : 422,
    );
  });

  /**
   * Every order the filters find (not one page), newest first as in the list, as CSV. At most
   * CSV_MAX_ORDERS: more is refused with the advice to narrow the dates, never cut short unsaid.
   */
  app.get('/orders/export.csv', async (c) => {
    const { errors, filter } = readFilters(c);
    if (!filter) {
      const problems = Object.entries(errors).map(([field, message]) => `${field}: ${message}`);
      return c.text(`The filters were refused, so nothing was exported. ${problems.join(' ')}`, 422);
    }
    // From the first order, whatever page the list was on.
    const wanted: OrderFilters = { ...filter, limit: ORDER_LIMITS.pageSize };
    delete wanted.cursor;
    const orders: OrderData[] = [];
    let cursor: string | undefined;
    do {
      const page = await listOrders(db, deps.config, owner(c), { ...wanted, ...(cursor ? { cursor } : {}) });
      orders.push(...page.orders);
      cursor = page.nextCursor ?? undefined;
      if (orders.length > CSV_MAX_ORDERS)
        return c.text(`More than ${CSV_MAX_ORDERS} orders match: narrow the creation dates (from, to) and export each part.`, 422);
    } while (cursor);
    c.header('Content-Disposition', `attachment; filename="orders-${owner(c).environment}-${new Date().toISOString().slice(0, 10)}.csv"`);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    return c.body(ordersCsv(orders));
  });

  async function loadOrder(c: C) {
    return getOrder(db, deps.config, owner(c), c.req.param('cartId') ?? '');
  }

  app.get('/orders/:cartId', async (c) => {
    const order = await loadOrder(c);
    if (!order) return c.html(notFoundPage('This order'), 404);
    return c.html(orderPage({ order, csrf: c.get('csrf'), refund: newRefundForm(), who: await who(c) }));
  });

  /** Polled by the timeline while a refund or a delivery is under way. */
  app.get('/orders/:cartId/timeline', async (c) => {
    const order = await loadOrder(c);
    if (!order) return c.html(notFoundPage('This order'), 404);
    return c.html(timelineSection({ order, csrf: c.get('csrf'), refund: newRefundForm() }));
  });

  app.post('/orders/:cartId/refunds', async (c) => {
    const order = await loadOrder(c);
    if (!order) return c.html(notFoundPage('This order'), 404);
    const body = await c.req.parseBody();
    const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    const typed = { amount: text('amount').trim(), reason: text('reason').trim() };
    // Only a key this dashboard made: the field is the browser's to send, and anything else starts afresh.
    const idempotencyKey = FORM_KEY.test(text('idempotencyKey')) ? text('idempotencyKey') : newRefundForm().idempotencyKey;
    const render = async (refund: RefundFormState, status: 201 | 403 | 422 | 503) => {
      const view: OrderView = { order: (await loadOrder(c)) ?? order, csrf: c.get('csrf'), refund };
      return c.html(
        await partOrPage(
          c,
          () => afterRefund(view),
          async () => orderPage({ ...view, who: await who(c) }),
        ),
        status,
      );
    };
    const refused = (errors: RefundFormState['errors']) => render({ ...typed, idempotencyKey, errors }, 422);

    const amount = parseRefundAmount(typed.amount, order.currency);
    if ('problem' in amount) return refused({ amount: amount.problem });
    const { role } = c.get('session')!;
    if (REFUND_LIMITED_ROLES.includes(role)) {
      const limit = (await supportRefundLimits(db, owner(c).platformUuid)).get(order.currency) ?? 0;
      if (amount.minor > limit) {
        const most = limit ? `at most ${formatMoney(limit, order.currency)} at once` : `nothing in ${order.currency}`;
        const amountError = `Not allowed: your role, ${role}, may refund ${most} on this merchant. Ask an owner for a larger refund.`;
        return render({ ...typed, idempotencyKey, errors: { amount: amountError } }, 403);
      }
    }
    try {
      const { refund, replayed } = await requestRefund(refunds, {
        ...owner(c),
        cartId: order.cartId,
        amount: amount.minor,
        ...(typed.reason ? { reason: typed.reason } : {}),
        idempotencyKey,
      });
      if (!replayed)
        await audit(c, owner(c).platformUuid, {
          action: 'order.refund',
          target: `order:${order.cartId}`,
          after: { refundId: refund.id, amount: refund.amount, status: refund.status },
        });
      return await render({ ...newRefundForm(), done: { amount: refund.amount, status: refund.status, failureCode: refund.failureCode } }, 201);
    } catch (err) {
      if (!(err instanceof RefundRefused)) throw err;
      const field = err.field === 'amount' || err.field === 'reason' ? err.field : 'form';
      // The API's message counts in minor units; the form is in the currency.
      const message =
        err.code === 'amount_exceeds_refundable' && err.refundable !== undefined
          ? `At most ${formatMoney(err.refundable, order.currency)} remains refundable on this order: enter that or less.`
          : err.message;
      return refused({ [field]: message });
    }
  });

  /**
   * Capture or void through core/orders/authorization.ts, as the merchant API does; a refusal is said
   * beside the amount (above the authorized amount) or above the forms (no longer authorized).
   */
  async function holdAction(
    c: C,
    act: (typedAmount: string, order: Order) => Promise<AuthorizationOutcome | Pick<CaptureFormState, 'errors'>>,
    what: 'capture' | 'void',
  ) {
    const order = await loadOrder(c);
    if (!order) return c.html(notFoundPage('This order'), 404);
    const body = await c.req.parseBody();
    const typed = typeof body.amount === 'string' ? body.amount.trim() : '';
    const render = async (capture: CaptureFormState, status: 200 | 202 | 422) => {
      const view: OrderView = { order: (await loadOrder(c)) ?? order, csrf: c.get('csrf'), refund: newRefundForm(), capture };
      return c.html(
        await partOrPage(
          c,
          () => afterCapture(view),
          async () => orderPage({ ...view, who: await who(c) }),
        ),
        status,
      );
    };
    try {
      const outcome = await act(typed, order);
      if (!('order' in outcome)) return await render({ amount: typed, ...outcome }, 422);
      if (!outcome.replayed)
        await audit(c, owner(c).platformUuid, {
          action: what === 'capture' ? 'order.capture' : 'order.void',
          target: `order:${order.cartId}`,
          after: what === 'capture' ? { capturedAmount: outcome.order.capturedAmount ?? null } : null,
        });
      const done = outcome.settled
        ? `The ${what} is done: the order is ${outcome.order.status}.`
        : `The ${what} is on its way to the processor; the timeline shows when it is done.`;
      return await render({ done }, outcome.settled ? 200 : 202);
    } catch (err) {
      if (!(err instanceof AuthorizationRefused)) throw err;
      const message =
        err.code === 'amount_exceeds_authorized' && err.authorized !== undefined
          ? `At most ${formatMoney(err.authorized, order.currency)} was authorized on this order: enter that or less.`
          : err.code === 'capture_already_decided' && err.captured !== undefined
            ? `This order’s capture is already decided: ${formatMoney(err.captured, order.currency)} was captured. An order is captured once.`
            : err.message;
      // A decided capture is said above the forms: once captured, the order has no amount field to say it beside.
      const field = err.field === 'amount' && err.code !== 'capture_already_decided' ? 'amount' : 'form';
      return render({ amount: typed, errors: { [field]: message } }, 422);
    }
  }

  app.post('/orders/:cartId/capture', (c) =>
    holdAction(
      c,
      async (typed, order) => {
        const input = { ...owner(c), cartId: order.cartId };
        if (!typed) return captureOrder(holds, input);
        const amount = parseRefundAmount(typed, order.currency);
        if ('problem' in amount) return { errors: { amount: amount.problem } };
        return captureOrder(holds, { ...input, amount: amount.minor });
      },
      'capture',
    ),
  );

  app.post('/orders/:cartId/void', (c) => holdAction(c, (_, order) => voidOrder(holds, { ...owner(c), cartId: order.cartId }), 'void'));

  app.post('/orders/:cartId/events/:eventId/replay', async (c) => {
    const order = await loadOrder(c);
    if (!order) return c.html(notFoundPage('This order'), 404);
    const eventId = c.req.param('eventId');
    const ours = order.webhooks.some((w) => w.eventId === eventId);
    let refused: ManualSendRefusal | undefined;
    let said: string[] | undefined;
    if (ours)
      // Limited as every manual send is (replayEvent, core/webhooks/manual-sends.ts).
      said = await replayEvent(replays, eventId, owner(c)).then(
        async (replayed) => {
          await audit(c, owner(c).platformUuid, { action: 'event.replay', target: `event:${eventId}` });
          return replayed.deliveries.map((d) => d.message);
        },
        (err: unknown) => {
          refused = manualSendRefusal(err);
          if (!refused) throw err;
          return undefined;
        },
      );
    if (refused?.retryAfterSeconds !== undefined) c.header('Retry-After', String(refused.retryAfterSeconds));
    const error = !ours ? 'No such event on this order.' : refused?.message;
    const view: OrderView = {
      order,
      csrf: c.get('csrf'),
      refund: newRefundForm(),
      replayed: { eventId, ...(said ? { said } : {}), ...(error ? { error } : {}) },
    };
    return c.html(
      await partOrPage(
        c,
        () => timelineSection(view),
        async () => orderPage({ ...view, who: await who(c) }),
      ),
      !ours ? 404 : (refused?.status ?? 200),
    );
  });

  return app;
}
