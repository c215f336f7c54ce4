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
import { auditMerchantKey } from '../audit-entry.js';
import {
  CREATE_WEBHOOK_ENDPOINT,
  DELETE_WEBHOOK_ENDPOINT,
  ENDPOINT_BODY_BYTES,
  GET_WEBHOOK_ENDPOINT,
  LIST_WEBHOOK_ENDPOINTS,
  ROTATE_WEBHOOK_ENDPOINT_SECRET,
  UPDATE_WEBHOOK_ENDPOINT,
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

/** The fields a change named, as the endpoint had them: an endpoint change's before and after in the audit log. */
function endpointFields(endpoint: object, fields: readonly string[]): Record<string, string | string[] | null> {
  const values = endpoint as Record<string, string | string[] | null>;
  return Object.fromEntries(fields.map((field) => [field, values[field] ?? null]));
}

/** `/v2/merchant/webhook-endpoints…`: the merchant's endpoints, mounted behind its API key (./routes.ts). */
export function webhookEndpointRoutes(deps: { config: Config; db: Db }) {
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
    await auditMerchantKey(c, deps, {
      action: 'webhook_endpoint.create',
      target: `webhook_endpoint:${created.id}`,
      after: { url: created.url, enabledEvents: created.enabledEvents, description: created.description },
    });
    return c.json(created satisfies CreatedWebhookEndpoint, 201);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, LIST_WEBHOOK_ENDPOINTS, CREATE_WEBHOOK_ENDPOINT);

  serve(app, MERCHANT_MOUNT, GET_WEBHOOK_ENDPOINT, async (c) =>
    c.json(await getWebhookEndpoint(db, c.get('merchant').platformUuid, endpointId(c.req.param('id'))).catch(translate)),
  );
  serve(app, MERCHANT_MOUNT, UPDATE_WEBHOOK_ENDPOINT, jsonBody(ENDPOINT_BODY_BYTES), async (c) => {
    const id = endpointId(c.req.param('id'));
    const body = await readValidJson(c, updateWebhookEndpointSchema);
    const before = await getWebhookEndpoint(db, c.get('merchant').platformUuid, id).catch(translate);
    const updated = await updateWebhookEndpoint(db, c.get('merchant'), id, body, config.webhooks).catch(translate);
    const changed = (Object.keys(body) as Array<keyof typeof body>).filter((field) => field in updated);
    await auditMerchantKey(c, deps, {
      action: body.status === 'disabled' && before.status !== 'disabled' ? 'webhook_endpoint.disable' : 'webhook_endpoint.update',
      target: `webhook_endpoint:${id}`,
      before: endpointFields(before, changed),
      after: endpointFields(updated, changed),
    });
    return c.json(updated);
  });
  serve(app, MERCHANT_MOUNT, DELETE_WEBHOOK_ENDPOINT, async (c) => {
    const id = endpointId(c.req.param('id'));
    await deleteWebhookEndpoint(db, c.get('merchant').platformUuid, id).catch(translate);
    await auditMerchantKey(c, deps, { action: 'webhook_endpoint.delete', target: `webhook_endpoint:${id}` });
    return c.body(null, 204);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, GET_WEBHOOK_ENDPOINT, UPDATE_WEBHOOK_ENDPOINT, DELETE_WEBHOOK_ENDPOINT);

  serve(app, MERCHANT_MOUNT, ROTATE_WEBHOOK_ENDPOINT_SECRET, async (c) => {
    const merchant = c.get('merchant');
    const id = endpointId(c.req.param('id'));
    await getWebhookEndpoint(db, merchant.platformUuid, id).catch(translate);
    const rotated = await rotateWebhookSecret(db, config.keyring, merchant.platformUuid, config.webhooks.secretOverlapMs, id);
    // That it was rotated, and until when the old ones sign: never the secret.
    await auditMerchantKey(c, deps, {
      action: 'webhook_secret.rotate',
      target: `webhook_endpoint:${id}`,
      after: { previousSecretsExpireAt: rotated.previousSecretsExpireAt },
    });
    return c.json({ id, secret: rotated.webhookSecret, previousSecretsExpireAt: rotated.previousSecretsExpireAt });
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, ROTATE_WEBHOOK_ENDPOINT_SECRET);
  return app;
}
