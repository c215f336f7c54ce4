import { findDeliveryEndpoint } from '../../core/merchants/merchant-store.js';
import type { postWebhook } from '../../core/webhooks/http-post.js';
import { admitManualSend, ManualSendLimitError } from '../../core/webhooks/manual-sends.js';
import { sendTestWebhook } from '../../core/webhooks/test-event.js';
import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { createWebhookEndpointSchema, ENDPOINT_LIMITS, updateWebhookEndpointSchema, type CreatedWebhookEndpoint } from '../../core/webhooks/endpoint-schema.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  EndpointDisabledByOperatorError,
  getWebhookEndpoint,
  listWebhookEndpoints,
  updateWebhookEndpoint,
  WebhookEndpointNotFoundError,
  WebhookEndpointRefusedError,
  WebhookUrlRejectedError,
} from '../../core/webhooks/endpoints.js';
import { rotateWebhookSecret } from '../../core/webhooks/secrets.js';
import { ApiError } from '../../application/errors.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { MERCHANT_MOUNT } from './mount.js';
import {
  CREATE_WEBHOOK_ENDPOINT,
  DELETE_WEBHOOK_ENDPOINT,
  ENDPOINT_BODY_BYTES,
  GET_WEBHOOK_ENDPOINT,
  LIST_WEBHOOK_ENDPOINTS,
  ROTATE_WEBHOOK_ENDPOINT_SECRET,
  UPDATE_WEBHOOK_ENDPOINT,
  TEST_WEBHOOK_ENDPOINT,
  type TestEventAnswer,
} from './webhook-endpoint-paths.js';
import { jsonBody, readValidJson } from '../json-body.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The field each refused change of an operator-disabled endpoint names. */
const BOUND_FIELD = { add: 'url', move: 'url', enable: 'status', disable: 'status', delete: 'id', send: 'endpointId' } as const;

/** ENDPOINT_DISABLED_BY_OPERATOR: what the merchant asked would lift an operator's disable, or send to the endpoint. */
export const endpointDisabledByOperator = (err: EndpointDisabledByOperatorError) =>
  new ApiError('ENDPOINT_DISABLED_BY_OPERATOR', err.message, [
    { path: BOUND_FIELD[err.action], message: `an operator disabled webhook endpoint ${err.endpointId}; only an operator enables it again` },
  ]);

/** RATE_LIMITED: the hourly test events and replays to one origin (core/webhooks/manual-sends.ts), the dashboard's and the API's together. */
export const manualSendsRateLimited = (err: ManualSendLimitError) =>
  new ApiError(
    'RATE_LIMITED',
    `Too many test events and replays to ${err.origin}: at most ${err.max} an hour to one origin, from the dashboard and the API together, whichever of your endpoints they go to. Retry after the delay in Retry-After.`,
    [{ path: 'endpointId', message: `its origin ${err.origin} has had ${err.max} test events and replays this hour` }],
    { 'Retry-After': String(err.retryAfterSeconds) },
  );

export const endpointNotFound = (id: string) =>
  new ApiError('NOT_FOUND', 'No webhook endpoint of yours has this id. List yours with GET /v2/merchant/webhook-endpoints.', [
    { path: 'id', message: `${id.length > 64 ? 'this value' : id} is not one of your webhook endpoints` },
  ]);

/** The domain's refusals in the documented envelope, each naming the field and the fix. */
function translate(err: unknown): never {
  if (err instanceof WebhookEndpointNotFoundError) throw endpointNotFound(err.endpointId);
  if (err instanceof EndpointDisabledByOperatorError) throw endpointDisabledByOperator(err);
  if (err instanceof WebhookUrlRejectedError)
    throw new ApiError(
      'VALIDATION_ERROR',
      'The webhook URL cannot be used.',
      err.merchantProblems.map((message) => ({ path: 'url', message })),
    );
  if (err instanceof WebhookEndpointRefusedError)
    throw err.reason === 'limit_reached'
      ? new ApiError(
          'ENDPOINT_LIMIT_REACHED',
          `You have ${ENDPOINT_LIMITS.perMerchant} webhook endpoints, the most allowed. Delete one you no longer use, or widen the enabledEvents of one.`,
        )
      : new ApiError(
          'LAST_ENDPOINT',
          'This is your last webhook endpoint. Disable it (PATCH {"status": "disabled"}) instead, or add another before deleting it.',
          [{ path: 'id', message: 'is your only webhook endpoint' }],
        );
  throw err;
}

/** `/v2/merchant/webhook-endpoints…`: the merchant's endpoints, mounted behind its API key (./routes.ts). */
export function webhookEndpointRoutes(deps: { config: Config; db: Db; postWebhook?: typeof postWebhook }) {
  const { config, db } = deps;
  const app = new Hono();
  const endpointId = (id: string) => {
    if (!UUID.test(id)) throw endpointNotFound(id);
    return id;
  };

  serve(app, MERCHANT_MOUNT, LIST_WEBHOOK_ENDPOINTS, async (c) => c.json({ data: await listWebhookEndpoints(db, c.get('merchant').platformUuid) }));
  serve(app, MERCHANT_MOUNT, CREATE_WEBHOOK_ENDPOINT, jsonBody(ENDPOINT_BODY_BYTES), async (c) => {
    const body = await readValidJson(c, createWebhookEndpointSchema);
    const created = await createWebhookEndpoint(db, config.keyring, c.get('merchant'), body, config.webhooks).catch(translate);
    return c.json(created satisfies CreatedWebhookEndpoint, 201);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, LIST_WEBHOOK_ENDPOINTS, CREATE_WEBHOOK_ENDPOINT);

  serve(app, MERCHANT_MOUNT, GET_WEBHOOK_ENDPOINT, async (c) =>
    c.json(await getWebhookEndpoint(db, c.get('merchant').platformUuid, endpointId(c.req.param('id'))).catch(translate)),
  );
  serve(app, MERCHANT_MOUNT, UPDATE_WEBHOOK_ENDPOINT, jsonBody(ENDPOINT_BODY_BYTES), async (c) => {
    const id = endpointId(c.req.param('id'));
    const body = await readValidJson(c, updateWebhookEndpointSchema);
    return c.json(await updateWebhookEndpoint(db, c.get('merchant'), id, body, config.webhooks).catch(translate));
  });
  serve(app, MERCHANT_MOUNT, DELETE_WEBHOOK_ENDPOINT, async (c) => {
    await deleteWebhookEndpoint(db, c.get('merchant').platformUuid, endpointId(c.req.param('id'))).catch(translate);
    return c.body(null, 204);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, GET_WEBHOOK_ENDPOINT, UPDATE_WEBHOOK_ENDPOINT, DELETE_WEBHOOK_ENDPOINT);

  serve(app, MERCHANT_MOUNT, TEST_WEBHOOK_ENDPOINT, async (c) => {
    const { platformUuid } = c.get('merchant');
    const id = endpointId(c.req.param('id'));
    const endpoint = await findDeliveryEndpoint(db, platformUuid, id);
    if (!endpoint || endpoint.deleted) throw endpointNotFound(id);
    // Counted with the dashboard's test events and every replay (core/webhooks/manual-sends.ts); none to an endpoint an operator disabled.
    await admitManualSend({ config, db }, platformUuid, [endpoint]).catch((err: unknown) => {
      if (err instanceof ManualSendLimitError) throw manualSendsRateLimited(err);
      translate(err);
    });
    const message = 'A test event sent with POST /v2/merchant/webhook-endpoints/{id}/test. Answer 2xx once its signature verifies.';
    const sent = await sendTestWebhook(db, config, platformUuid, { endpointId: id, message, ...(deps.postWebhook ? { post: deps.postWebhook } : {}) });
    const { status, errorClass, latencyMs } = sent.outcome;
    return c.json({
      eventId: sent.eventId,
      url: sent.url,
      delivered: status !== undefined && status >= 200 && status < 300,
      ...(status === undefined ? {} : { status }),
      ...(errorClass ? { error: errorClass } : {}),
      latencyMs,
    } satisfies TestEventAnswer);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, TEST_WEBHOOK_ENDPOINT);

  serve(app, MERCHANT_MOUNT, ROTATE_WEBHOOK_ENDPOINT_SECRET, async (c) => {
    const merchant = c.get('merchant');
    const id = endpointId(c.req.param('id'));
    await getWebhookEndpoint(db, merchant.platformUuid, id).catch(translate);
    const rotated = await rotateWebhookSecret(db, config.keyring, merchant.platformUuid, config.webhooks.secretOverlapMs, id);
    return c.json({ id, secret: rotated.webhookSecret, previousSecretsExpireAt: rotated.previousSecretsExpireAt });
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, ROTATE_WEBHOOK_ENDPOINT_SECRET);
  return app;
}
