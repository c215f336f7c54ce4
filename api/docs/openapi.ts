import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT } from '../../core/webhooks/events.js';
import { eventStreamMessageSchema, STREAM_MESSAGE_COMPONENT } from '../../core/webhooks/event-feed-schema.js';
import { CART_EVENT_EXAMPLES, TEST_EVENT_EXAMPLE } from '../../core/webhooks/event-examples.js';
import { CREATE_CART } from '../carts/cart-paths.js';
import { DISPUTE_PATHS } from '../merchant/dispute-paths.js';
import { LIST_CURRENCIES } from '../currencies/currency-paths.js';
import { EVENT_PATHS } from '../merchant/event-paths.js';
import { SANDBOX_DISPUTE_PATHS } from '../sandbox/dispute-paths.js';
import { HOLD_PATHS } from '../merchant/hold-paths.js';
import { ORDER_PATHS } from '../merchant/order-paths.js';
import { PAYMENT_LINK_PATHS } from '../merchant/payment-link-paths.js';
import { SESSION_PATHS } from '../merchant/session-paths.js';
import { WEBHOOK_ENDPOINT_PATHS } from '../merchant/webhook-endpoint-paths.js';
import { SANDBOX_PATHS } from '../sandbox/sandbox-paths.js';
import { operationOf, type DocumentSettings } from '../route-declaration.js';
import { MERCHANT_API_KEY_SCHEME } from './responses.js';
import { DELIVERY_ANSWERS, TEST_EVENT_ANSWERS } from './webhook-callbacks.js';

/**
 * The OpenAPI document's assembly: its info, servers, tags, security scheme and webhooks. Each path is
 * declared once beside the routes module that serves it (api/route-declaration.ts,
 * docs/decisions/openapi-from-routes.md); this file only lists them, in the document's order.
 */
const ROUTES = [
  CREATE_CART,
  LIST_CURRENCIES,
  ...ORDER_PATHS,
  ...SESSION_PATHS,
  ...HOLD_PATHS,
  ...DISPUTE_PATHS,
  ...WEBHOOK_ENDPOINT_PATHS,
  ...EVENT_PATHS,
  ...PAYMENT_LINK_PATHS,
  ...SANDBOX_DISPUTE_PATHS,
];

const TAGS = [
  { name: 'Checkout sessions', description: 'Create the session the customer pays on the hosted page.' },
  { name: 'Merchant API', description: 'Your profile and orders: look them up, refund, capture or void them, and end an open session. With your API key.' },
  {
    name: 'Webhook endpoints',
    description: 'Where your events go, and what became of each: endpoints, their secrets, the events list and replays. With your API key.',
  },
  {
    name: 'Payment links',
    description: 'A cart you sell with a link (social media, an invoice, a QR code): each visit opens a checkout session of its own. With your API key.',
  },
  {
    name: 'Sandbox helpers',
    description: 'Sandbox only: drive a checkout by API, as its customer, and fire its timers now (docs/api.md, "Sandbox helpers"). With your API key.',
  },
  { name: 'Webhooks', description: 'What we POST to your endpoints, signed (Standard Webhooks): one body per event, in order per cart (docs/webhooks.md).' },
];

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(config: DocumentSettings) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', MERCHANT_API_KEY_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description:
      "The merchant's API key, `sk_<environment>_…`, given once at registration and on each rotation. Required on everything under /v2/merchant/. Optional on create-cart: needed only when the merchant's operator turned on requireApiKeyForCarts; sent there, it must be the merchant's active key (else 401, never a public cart).",
  });
  // The sandbox helpers exist in a sandbox deployment only (api/app.ts), and so in its document only.
  const routes = config.environment === 'production' ? ROUTES : [...ROUTES, ...SANDBOX_PATHS];
  for (const route of routes) registry.registerPath(operationOf(route, config));
  // Only the stream's x-itemSchema names it, which the generator does not follow (api/merchant/event-paths.ts).
  // register() asks the schema for the id through the .openapi() zod-to-openapi patches into zod, which
  // this project does not patch: the schema already carries its id (.meta), so it answers itself.
  registry.register(
    STREAM_MESSAGE_COMPONENT,
    Object.assign(Object.create(eventStreamMessageSchema) as typeof eventStreamMessageSchema, { openapi: () => eventStreamMessageSchema }),
  );
  registerWebhooks(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hosted Checkout API',
      version: '2.0.0',
      contact: { name: 'Hosted Checkout support: quote the X-Request-Id of the request in question' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: `Create checkout sessions for the hosted payment page, then look up and refund your orders, and end a session you can no longer honour. This is the ${config.environment} environment. Create-cart identifies the merchant by \`cartObject.store.platformUuid\`; no Authorization header is needed unless the merchant chose to require its API key on create-cart (then \`Authorization: Bearer <apiKey>\`, else 401); an Authorization header that is sent must carry the merchant's active key, else 401. Everything under \`/v2/merchant/\` needs \`Authorization: Bearer <apiKey>\`. Every error has the same body (\`Error\`).`,
    },
    servers: [{ url: config.apiBaseUrl, description: config.environment }],
    tags: config.environment === 'production' ? TAGS.filter((tag) => tag.name !== 'Sandbox helpers') : TAGS,
  });
}

/** The headers of every delivery (core/webhooks/signing.ts webhookHeaders); the timestamp and signature are fresh per attempt. */
const deliveryHeaders = z.object({
  'webhook-id': z.string().meta({ description: 'The event’s id, the same on every retry and replay: dedupe on it', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
  'webhook-timestamp': z.string().regex(/^\d+$/).meta({ description: 'Unix seconds of this attempt; reject beyond ±5 minutes', example: '1893499200' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of your secret after `whsec_`; several, space-separated, while a rotated secret overlaps',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
  'X-Client-Signature': z.string().meta({ description: 'The same as webhook-signature', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }),
  'X-Client-Event': z.enum([...WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT]).meta({ description: 'The body’s event' }),
  'X-Client-Delivery-Attempt': z.string().regex(/^\d+$/).meta({ description: 'Counts the attempts of this delivery, from 1', example: '1' }),
});

/** `webhooks`: each event we POST to your endpoints, with its headers and the answer we expect. */
function registerWebhooks(registry: OpenAPIRegistry) {
  for (const name of WEBHOOK_EVENT_NAMES) {
    const schema = CART_EVENT_SCHEMAS[name];
    registry.registerWebhook({
      method: 'post',
      path: name,
      operationId: `${name.replace(/_(.)/g, (_, c: string) => c.toUpperCase())}Webhook`,
      summary: `The ${name} event`,
      description: schema.description ?? name,
      tags: ['Webhooks'],
      // Signed, not authenticated by a scheme of ours: the receiver checks the signature headers.
      security: [],
      request: {
        headers: deliveryHeaders,
        body: { required: true, content: { 'application/json': { schema, example: CART_EVENT_EXAMPLES[name] } } },
      },
      responses: DELIVERY_ANSWERS,
    });
  }
  registry.registerWebhook({
    method: 'post',
    path: WEBHOOK_TEST_EVENT,
    operationId: 'webhookTestWebhook',
    summary: 'The test event',
    description: testEventBodySchema.description ?? WEBHOOK_TEST_EVENT,
    tags: ['Webhooks'],
    security: [],
    request: {
      headers: deliveryHeaders,
      body: { required: true, content: { 'application/json': { schema: testEventBodySchema, example: TEST_EVENT_EXAMPLE } } },
    },
    responses: TEST_EVENT_ANSWERS,
  });
}
