import { DELIVERY_ERRORS } from '../../core/outbound/delivery-errors.js';
import { z } from 'zod';
import {
  createdWebhookEndpointSchema,
  createWebhookEndpointSchema,
  ENDPOINT_LIMITS,
  rotatedSecretSchema,
  updateWebhookEndpointSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../../core/webhooks/endpoint-schema.js';
import {
  bodyErrors,
  errorResponses,
  example,
  json,
  MERCHANT_COMMON_ERRORS,
  MERCHANT_INTERNAL,
  MERCHANT_SECURITY,
  MERCHANT_UNAUTHORIZED,
  MERCHANT_UNAVAILABLE,
  methodNotAllowedError,
  requestIdHeader,
  together,
  type DocumentedError,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';

/** The routes ./webhook-endpoint-routes.ts serves, declared once: the merchant's webhook endpoints and their secrets. */

/** An endpoint's body is three short fields and a URL: anything near this size is not one. */
export const ENDPOINT_BODY_BYTES = 16 * 1024;

const ENDPOINT_FIELDS_INVALID =
  'url not an http(s) URL your environment may call (production: https to public addresses), enabledEvents not a list of event names or ["*"] alone, description too long, an unknown field, or (PATCH) no field at all.';
const ENDPOINT_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no webhook endpoint of yours has this id (another merchant’s answers the same: never 403); a deleted one is gone.',
  examples: [
    example('NOT_FOUND', 'No webhook endpoint of yours has this id. List yours with GET /v2/merchant/webhook-endpoints.', [
      { path: 'id', message: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b is not one of your webhook endpoints' },
    ]),
  ],
};
const ENDPOINT_LIMIT: DocumentedError = {
  description: `ENDPOINT_LIMIT_REACHED: you have ${ENDPOINT_LIMITS.perMerchant} endpoints already.`,
  examples: [
    example(
      'ENDPOINT_LIMIT_REACHED',
      `You have ${ENDPOINT_LIMITS.perMerchant} webhook endpoints, the most allowed. Delete one you no longer use, or widen the enabledEvents of one.`,
    ),
  ],
};
const LAST_ENDPOINT: DocumentedError = {
  description: 'LAST_ENDPOINT: a merchant keeps at least one endpoint; disable it instead.',
  examples: [
    example('LAST_ENDPOINT', 'This is your last webhook endpoint. Disable it (PATCH {"status": "disabled"}) instead, or add another before deleting it.', [
      { path: 'id', message: 'is your only webhook endpoint' },
    ]),
  ],
};

export const BOUND_BY_OPERATOR: DocumentedError = {
  description:
    'ENDPOINT_DISABLED_BY_OPERATOR: an operator disabled the endpoint, and that binds you until an operator enables it again: its URL is not added again, spelt otherwise or by another host name of the addresses it resolved to when disabled, as a new endpoint or another’s URL; it is not moved, enabled, disabled again (its reason stays the operator’s) nor deleted; nothing is replayed to it. Contact support.',
  examples: [
    example(
      'ENDPOINT_DISABLED_BY_OPERATOR',
      'An operator disabled this webhook endpoint: it cannot be deleted until an operator enables it again. Contact support.',
      [{ path: 'id', message: 'an operator disabled webhook endpoint 0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b; only an operator enables it again' }],
    ),
  ],
};

const endpointIdParameter = z.object({
  id: z.uuid().meta({ description: 'The endpoint’s id', example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
});

const endpointBodyErrors = bodyErrors(ENDPOINT_BODY_BYTES, ENDPOINT_FIELDS_INVALID, {
  path: 'enabledEvents[0]',
  message: 'must be one of order_created, order_updated, order_cancelled, order_refunded, order_abandoned, or "*" alone for every event',
});

export const LIST_WEBHOOK_ENDPOINTS = declareRoute({
  method: 'get',
  path: '/v2/merchant/webhook-endpoints',
  operation: {
    operationId: 'listWebhookEndpoints',
    summary: 'List your webhook endpoints',
    description: `Up to ${ENDPOINT_LIMITS.perMerchant}, oldest first. The first is the one your webhook URL setting (dashboard, operators) changes.`,
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    responses: {
      200: { description: 'Your endpoints.', headers: requestIdHeader, content: json(webhookEndpointListSchema) },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, methodNotAllowedError('GET, POST')]),
    },
  },
});

export const CREATE_WEBHOOK_ENDPOINT = declareRoute({
  method: 'post',
  path: '/v2/merchant/webhook-endpoints',
  operation: {
    operationId: 'createWebhookEndpoint',
    summary: 'Add a webhook endpoint',
    description: [
      'The endpoint receives the events in `enabledEvents` (or every event with `["*"]`), each cart’s in order, signed with its own secret,',
      'returned this once as `secret`. Events recorded from now on are sent to it; replay older ones with POST /v2/merchant/events/{id}/replay.',
    ].join(' '),
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: createWebhookEndpointSchema,
            example: { url: 'https://accounting.example/hooks', enabledEvents: ['order_refunded'], description: 'Accounting' },
          },
        },
      },
    },
    responses: {
      201: { description: 'The endpoint, with its secret.', headers: requestIdHeader, content: json(createdWebhookEndpointSchema) },
      ...errorResponses([...endpointBodyErrors, ...MERCHANT_COMMON_ERRORS, together(ENDPOINT_LIMIT, BOUND_BY_OPERATOR)]),
    },
  },
});

export const GET_WEBHOOK_ENDPOINT = declareRoute({
  method: 'get',
  path: '/v2/merchant/webhook-endpoints/{id}',
  operation: {
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint',
    description: 'Its URL, enabledEvents, description and status (with why it was disabled); never its secret.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { params: endpointIdParameter },
    responses: {
      200: { description: 'The endpoint (never its secret).', headers: requestIdHeader, content: json(webhookEndpointSchema) },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, ENDPOINT_NOT_FOUND, methodNotAllowedError('GET, PATCH, DELETE')]),
    },
  },
});

export const UPDATE_WEBHOOK_ENDPOINT = declareRoute({
  method: 'patch',
  path: '/v2/merchant/webhook-endpoints/{id}',
  operation: {
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Any of url, enabledEvents, description and status. A new URL enables the endpoint again; `status: "disabled"` stops its deliveries (kept as skipped, replayable) and `"enabled"` starts them again. An endpoint an operator disabled keeps its status, reason and URL until an operator enables it (ENDPOINT_DISABLED_BY_OPERATOR), and no endpoint takes its URL; its enabledEvents and description are still yours.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: {
      params: endpointIdParameter,
      body: { required: true, content: { 'application/json': { schema: updateWebhookEndpointSchema, example: { enabledEvents: ['*'] } } } },
    },
    responses: {
      200: { description: 'The endpoint as changed.', headers: requestIdHeader, content: json(webhookEndpointSchema) },
      ...errorResponses([...endpointBodyErrors, ...MERCHANT_COMMON_ERRORS, ENDPOINT_NOT_FOUND, BOUND_BY_OPERATOR]),
    },
  },
});

export const DELETE_WEBHOOK_ENDPOINT = declareRoute({
  method: 'delete',
  path: '/v2/merchant/webhook-endpoints/{id}',
  operation: {
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description:
      'Nothing more is sent to it, retries included. Your last endpoint cannot be deleted: disable it instead. Nor one an operator disabled, until an operator enables it again.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { params: endpointIdParameter },
    responses: {
      204: { description: 'Deleted.', headers: requestIdHeader },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, ENDPOINT_NOT_FOUND, together(LAST_ENDPOINT, BOUND_BY_OPERATOR)]),
    },
  },
});

export const ROTATE_WEBHOOK_ENDPOINT_SECRET = declareRoute({
  method: 'post',
  path: '/v2/merchant/webhook-endpoints/{id}/rotate-secret',
  operation: {
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate an endpoint’s signing secret',
    description:
      'A new secret, returned this once; the old ones keep signing beside it until previousSecretsExpireAt, so you can deploy the new one without rejecting a delivery.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { params: endpointIdParameter },
    responses: {
      200: { description: 'The new secret.', headers: requestIdHeader, content: json(rotatedSecretSchema) },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, ENDPOINT_NOT_FOUND, methodNotAllowedError('POST')]),
    },
  },
});

export const testEventAnswerSchema = z
  .strictObject({
    eventId: z.string().meta({
      description: 'The test event’s id (its webhook-id header); test events are neither recorded nor retried',
      example: 'evt_test_3f2c9b7e0d3a4c1b8e6f5a4d',
    }),
    url: z.string().meta({ description: 'Where it went: the endpoint’s URL' }),
    delivered: z.boolean().meta({ description: 'true when your endpoint answered 2xx' }),
    status: z.int().optional().meta({ description: 'Your endpoint’s HTTP status; absent when it did not answer' }),
    error: z.enum(DELIVERY_ERRORS).optional().meta({ description: 'Why there was no answer (docs/webhooks.md); absent when it answered' }),
    latencyMs: z.number().meta({ description: 'How long the POST took' }),
  })
  .meta({ id: 'WebhookTestEventResult' });
export type TestEventAnswer = z.output<typeof testEventAnswerSchema>;

export const TEST_WEBHOOK_ENDPOINT = declareRoute({
  method: 'post',
  path: '/v2/merchant/webhook-endpoints/{id}/test',
  operation: {
    operationId: 'testWebhookEndpoint',
    summary: 'Send a signed test event to an endpoint',
    description:
      'Sends one `webhook_test` event to the endpoint now, signed with each of its live secrets as every delivery is (docs/webhooks.md), also to a disabled endpoint, and answers what your endpoint answered: check your signature verification before real orders arrive. The dashboard’s "Send a test event" does the same for your first endpoint. No body. Counted with test events and replays: WEBHOOK_MANUAL_SENDS_PER_HOUR to one origin.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { params: endpointIdParameter },
    responses: {
      200: { description: 'Sent; `delivered` says whether your endpoint answered 2xx.', headers: requestIdHeader, content: json(testEventAnswerSchema) },
      ...errorResponses([
        MERCHANT_UNAUTHORIZED,
        ENDPOINT_NOT_FOUND,
        methodNotAllowedError('POST'),
        BOUND_BY_OPERATOR,
        {
          description:
            'RATE_LIMITED: you had your test events and replays for the hour to the endpoint’s origin (WEBHOOK_MANUAL_SENDS_PER_HOUR, 30 by default, from the dashboard and the API together); retry after Retry-After seconds.',
          examples: [
            example(
              'RATE_LIMITED',
              'Too many test events and replays to https://shop.example: at most 30 an hour to one origin, from the dashboard and the API together, whichever of your endpoints they go to. Retry after the delay in Retry-After.',
              [{ path: 'endpointId', message: 'its origin https://shop.example has had 30 test events and replays this hour' }],
            ),
          ],
          retryAfter: true,
        },
        MERCHANT_INTERNAL,
        MERCHANT_UNAVAILABLE,
      ]),
    },
  },
});

/** In the document's order. */
export const WEBHOOK_ENDPOINT_PATHS = [
  LIST_WEBHOOK_ENDPOINTS,
  CREATE_WEBHOOK_ENDPOINT,
  GET_WEBHOOK_ENDPOINT,
  UPDATE_WEBHOOK_ENDPOINT,
  DELETE_WEBHOOK_ENDPOINT,
  ROTATE_WEBHOOK_ENDPOINT_SECRET,
  TEST_WEBHOOK_ENDPOINT,
];
