import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { MerchantProfile } from '../../core/merchants/merchant-schema.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { AuthorizationRefused, captureAmount, captureOrder, voidOrder, type AuthorizationOutcome } from '../../core/orders/authorization.js';
import { captureRequestSchema, orderListQuerySchema, refundRequestSchema, type OrderList } from '../../core/orders/order-schema.js';
import { getOrder, listOrders } from '../../core/orders/orders.js';
import type { Temporal } from '../../core/temporal/connection.js';
import type { ReplaySender } from '../../core/webhooks/replay.js';
import { requestRefund, RefundRefused } from '../../core/orders/request-refund.js';
import { authorizationHold } from '../../workflows/cart-session/client.js';
import { refundWorkflow } from '../../workflows/refund/client.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey, REPLAYED_HEADER } from '../../application/carts/idempotency.js';
import { ApiError, validationError } from '../../application/errors.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { merchantAuth } from './auth.js';
import { auditMerchantKey } from '../audit-entry.js';
import { disputeRoutes } from './dispute-routes.js';
import { EXPIRE_DEADLINE_MS, expireSession } from './expire-session.js';
import { retrySession } from './retry-session.js';
import { answerOnce, type ActionRequest } from './idempotency.js';
import { eventRoutes } from './event-routes.js';
import { eventStreamRoutes } from './event-stream-routes.js';
import { webhookEndpointRoutes } from './webhook-endpoint-routes.js';
import { paymentLinkRoutes } from './payment-link-routes.js';
import { processorCurrencies } from '../../core/checkout/processor-amounts.js';
import { unchargeableError } from '../../application/chargeable-amount.js';
import { CAPTURE_BODY_BYTES, CAPTURE_ORDER, VOID_ORDER } from './hold-paths.js';
import { GET_MERCHANT, GET_ORDER, LIST_ORDERS, REFUND_BODY_BYTES, REFUND_ORDER } from './order-paths.js';
import { EXPIRE_CART, RETRY_CART } from './session-paths.js';
import { MERCHANT_MOUNT } from './mount.js';

const orderNotFound = (cartId: string) =>
  new ApiError(
    'NOT_FOUND',
    'No order of yours in this environment has this cartId. Check the cartId and that the API key is of the environment the cart was created in.',
    [{ path: 'cartId', message: `${cartId.length > 64 ? 'this value' : cartId} is not one of your orders in this environment` }],
  );

/** Capture and refund amounts are in the order's currency: `amount` is the one field either refusal can name. */
const AMOUNT_ONLY = { currency: 'amount', amount: 'amount' };

/** A refusal of the refund client, in the documented envelope, naming the field and the fix. */
function refundRefusal(cartId: string, refusal: RefundRefused): ApiError {
  const field = refusal.field ?? 'amount';
  switch (refusal.code) {
    case 'order_not_found':
      return orderNotFound(cartId);
    case 'order_not_paid':
      return new ApiError('ORDER_NOT_PAID', refusal.message, [{ path: 'cartId', message: 'is not a paid order: only paid orders can be refunded' }]);
    case 'amount_exceeds_refundable':
      return new ApiError('AMOUNT_EXCEEDS_REFUNDABLE', refusal.message, [
        { path: 'amount', message: `must be at most ${refusal.refundable ?? 0}, what remains refundable on this order` },
      ]);
    case 'idempotency_conflict':
      return new ApiError('IDEMPOTENCY_CONFLICT', refusal.message, [{ path: IDEMPOTENCY_HEADER, message: 'was used with a different refund request' }]);
    case 'amount_not_representable':
    case 'currency_not_supported':
      return unchargeableError({ code: refusal.code, message: refusal.message, field: refusal.fieldMessage ?? refusal.message }, AMOUNT_ONLY);
    case 'invalid_amount':
    case 'invalid_reason':
      return new ApiError('VALIDATION_ERROR', 'The request has 1 invalid field.', [{ path: field, message: refusal.message }]);
  }
}

/**
 * How long a repeat with an Idempotency-Key waits for the first request with it: a capture or void
 * answers within its 10 s wait for the processor (workflows/cart-session/client.ts), an expire within its deadline.
 */
const HOLD_KEY_WAIT_MS = 15_000;
const EXPIRE_KEY_WAIT_MS = EXPIRE_DEADLINE_MS + 2_000;
/** A retry is a create-cart: a few database writes and a workflow start bounded to 3 s (application/carts/create-cart-session.ts). */
const RETRY_KEY_WAIT_MS = 10_000;

/** A refusal of a capture or void, in the documented envelope, naming the field and the fix. */
export function authorizationRefusal(cartId: string, refusal: AuthorizationRefused): ApiError {
  switch (refusal.code) {
    case 'order_not_found':
      return orderNotFound(cartId);
    case 'order_not_authorized':
      return new ApiError('ORDER_NOT_AUTHORIZED', refusal.message, [
        { path: 'cartId', message: 'is not an authorized order: only those can be captured or voided' },
      ]);
    case 'amount_exceeds_authorized':
      return new ApiError('AMOUNT_EXCEEDS_AUTHORIZED', refusal.message, [
        { path: 'amount', message: `must be at most ${refusal.authorized ?? 0}, the authorized amount` },
      ]);
    case 'amount_not_representable':
    case 'currency_not_supported':
      return unchargeableError({ code: refusal.code, message: refusal.message, field: refusal.fieldMessage ?? refusal.message }, AMOUNT_ONLY);
    case 'capture_already_decided':
      return new ApiError('CAPTURE_ALREADY_DECIDED', refusal.message, [
        { path: 'amount', message: `must be ${refusal.captured ?? 0}, the amount captured on this order: an order is captured once` },
      ]);
  }
}

/** `/v2/merchant/…`: what a merchant does with its own API key: its profile, orders, refunds, captures, open sessions, retries and payment links. */
export function merchantRoutes(deps: { config: Config; db: Db; temporal: Temporal; logger: Logger } & ReplaySender) {
  const { config, db, temporal } = deps;
  const currencies = processorCurrencies(config.payments.processor);
  const refunds = { db, temporal, refundWorkflow: refundWorkflow(temporal.client, config), currencies };
  const holds = { db, checkoutBaseUrl: config.checkoutBaseUrl, keyring: config.keyring, hold: authorizationHold(temporal.client), currencies };
  /**
   * 200 with the order once the processor answered; 202 with the order still `authorized` while it works on it.
   * With an Idempotency-Key, a repeat of the request answers the first 200 (api/merchant/idempotency.ts).
   */
  const answerHold = async (c: Context, key: string | undefined, request: ActionRequest, act: () => Promise<AuthorizationOutcome>) =>
    answerOnce(c, { db, keyring: config.keyring, pendingWaitMs: HOLD_KEY_WAIT_MS }, c.get('merchant').platformUuid, key, request, async () => {
      try {
        const { order, settled, replayed } = await act();
        if (!replayed)
          await auditMerchantKey(c, deps, {
            action: request.action === 'capture' ? 'order.capture' : 'order.void',
            target: `order:${request.cartId}`,
            after: request.amount === undefined ? null : { amount: request.amount },
          });
        return { body: order, status: settled ? 200 : 202, replayed };
      } catch (err) {
        if (err instanceof AuthorizationRefused) throw authorizationRefusal(request.cartId, err);
        throw err;
      }
    });
  const app = new Hono();
  app.use(merchantAuth({ db, environment: config.environment }));

  serve(app, MERCHANT_MOUNT, GET_MERCHANT, async (c) => {
    const m = await getMerchant(db, c.get('merchant').platformUuid);
    return c.json({
      platformUuid: m.platformUuid,
      name: m.name,
      environment: m.environment,
      webhookUrl: m.webhookUrl,
      domains: m.domains,
      requireApiKeyForCarts: m.requireApiKeyForCarts,
    } satisfies MerchantProfile);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, GET_MERCHANT);

  serve(app, MERCHANT_MOUNT, LIST_ORDERS, async (c) => {
    const parsed = orderListQuerySchema.safeParse(c.req.query(), { reportInput: true });
    if (!parsed.success) throw validationError(parsed.error);
    const q = parsed.data;
    const { orders, nextCursor } = await listOrders(db, config, c.get('merchant'), {
      ...(q.status ? { status: q.status } : {}),
      ...(q.createdFrom ? { createdFrom: new Date(q.createdFrom) } : {}),
      ...(q.createdTo ? { createdTo: new Date(q.createdTo) } : {}),
      ...(q.extraKey !== undefined && q.extraValue !== undefined ? { extra: { key: q.extraKey, value: q.extraValue } } : {}),
      ...(q.limit ? { limit: q.limit } : {}),
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
    return c.json({ data: orders, nextCursor } satisfies OrderList);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, LIST_ORDERS);

  serve(app, MERCHANT_MOUNT, GET_ORDER, async (c) => {
    const cartId = c.req.param('cartId');
    const order = await getOrder(db, config, c.get('merchant'), cartId);
    if (!order) throw orderNotFound(cartId);
    return c.json(order);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, GET_ORDER);

  serve(app, MERCHANT_MOUNT, REFUND_ORDER, jsonBody(REFUND_BODY_BYTES), async (c) => {
    const cartId = c.req.param('cartId');
    const idempotencyKey = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    const body = await readValidJson(c, refundRequestSchema);
    const merchant = c.get('merchant');
    try {
      const { refund, replayed } = await requestRefund(refunds, {
        platformUuid: merchant.platformUuid,
        environment: merchant.environment,
        cartId,
        amount: body.amount,
        ...(body.reason === undefined ? {} : { reason: body.reason }),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      if (replayed) c.header(REPLAYED_HEADER, 'true');
      else
        await auditMerchantKey(c, deps, {
          action: 'order.refund',
          target: `order:${cartId}`,
          after: { refundId: refund.id, amount: refund.amount, status: refund.status },
        });
      return c.json(refund, 201);
    } catch (err) {
      if (err instanceof RefundRefused) throw refundRefusal(cartId, err);
      throw err;
    }
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, REFUND_ORDER);

  // No body: whatever is sent is ignored, so a client that always sends `{}` works too.
  serve(app, MERCHANT_MOUNT, EXPIRE_CART, async (c) => {
    const cartId = c.req.param('cartId');
    const key = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    const merchant = c.get('merchant');
    return answerOnce(
      c,
      { db, keyring: config.keyring, pendingWaitMs: EXPIRE_KEY_WAIT_MS },
      merchant.platformUuid,
      key,
      { action: 'expire', cartId },
      async () => {
        const expired = await expireSession({ db, temporal }, merchant, cartId);
        if (!expired) throw orderNotFound(cartId);
        await auditMerchantKey(c, deps, { action: 'cart.expire', target: `cart:${cartId}` });
        return { body: expired, status: 200 };
      },
    );
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, EXPIRE_CART);

  // No body, as expire: the new session is the retried cart's store and cart.
  serve(app, MERCHANT_MOUNT, RETRY_CART, async (c) => {
    const cartId = c.req.param('cartId');
    const key = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    const merchant = c.get('merchant');
    return answerOnce(
      c,
      { db, keyring: config.keyring, pendingWaitMs: RETRY_KEY_WAIT_MS },
      merchant.platformUuid,
      key,
      { action: 'retry', cartId },
      async () => {
        const retried = await retrySession({ config, db, temporal, logger: c.get('logger') ?? deps.logger }, merchant, cartId);
        if (!retried) throw orderNotFound(cartId);
        await auditMerchantKey(c, deps, { action: 'cart.retry', target: `cart:${cartId}`, after: { newCartId: retried.cartId } });
        return { body: retried, status: 200 };
      },
    );
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, RETRY_CART);
  // At this app's root: each serves the full paths its declarations give, below MERCHANT_MOUNT.
  app.route('/', webhookEndpointRoutes(deps));
  app.route('/', paymentLinkRoutes(deps));
  app.route('/', eventStreamRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', disputeRoutes(deps));

  serve(app, MERCHANT_MOUNT, CAPTURE_ORDER, jsonBody(CAPTURE_BODY_BYTES), async (c) => {
    const cartId = c.req.param('cartId');
    const key = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    const body = await readValidJson(c, captureRequestSchema);
    const merchant = c.get('merchant');
    const input = { platformUuid: merchant.platformUuid, environment: merchant.environment, cartId };
    // `{}` and `{amount: <the total>}` are one capture, under a key too.
    let amount: number;
    try {
      amount = await captureAmount(holds, { ...input, ...(body.amount === undefined ? {} : { amount: body.amount }) });
    } catch (err) {
      if (err instanceof AuthorizationRefused) throw authorizationRefusal(cartId, err);
      throw err;
    }
    return answerHold(c, key, { action: 'capture', cartId, amount }, () => captureOrder(holds, { ...input, amount }));
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, CAPTURE_ORDER);

  serve(app, MERCHANT_MOUNT, VOID_ORDER, async (c) => {
    const cartId = c.req.param('cartId');
    const key = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
    const merchant = c.get('merchant');
    return answerHold(c, key, { action: 'void', cartId }, () =>
      voidOrder(holds, { platformUuid: merchant.platformUuid, environment: merchant.environment, cartId }),
    );
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, VOID_ORDER);
  return app;
}
