import { z } from 'zod';
import { plainText } from '../checkout/cart-schema.js';
import { WEBHOOK_EVENT_NAMES } from './events.js';

/**
 * What the merchant API says about webhook endpoints and what it accepts: one source for the
 * validation, the TypeScript types, the OpenAPI document (api/docs/openapi.ts) and the dashboard.
 */

export const ENDPOINT_LIMITS = {
  /** Endpoints per merchant; a merchant is registered in one environment, so per environment too. */
  perMerchant: 16,
  url: 2048,
  description: 500,
} as const;

/** Every event, now and as new ones are added. */
export const ALL_EVENTS = '*';

const eventName = z.enum(WEBHOOK_EVENT_NAMES, { error: `must be one of ${WEBHOOK_EVENT_NAMES.join(', ')}, or "*" alone for every event` });

export const enabledEventsSchema = z
  .array(z.union([z.literal(ALL_EVENTS), eventName], { error: `must be one of ${WEBHOOK_EVENT_NAMES.join(', ')}, or "*" alone for every event` }), {
    error: `must be a list of event names (${WEBHOOK_EVENT_NAMES.join(', ')}) or ["*"]`,
  })
  .min(1, 'must name at least one event, or be ["*"] for every event')
  .refine((events) => !events.includes(ALL_EVENTS) || events.length === 1, '"*" already means every event: send ["*"] alone')
  .refine((events) => new Set(events).size === events.length, 'names an event twice')
  .meta({ description: 'The events this endpoint receives: event names, or ["*"] for every event', example: ['order_created', 'order_refunded'] });

const urlField = z
  .string('must be a string')
  .max(ENDPOINT_LIMITS.url, `must be at most ${ENDPOINT_LIMITS.url} characters`)
  .refine((v) => plainText(v), 'must not contain control characters or line breaks')
  .meta({
    description: 'Where the events go: https (http to a local host in sandbox)',
    example: 'https://store.example/webhooks/orders',
  });
const descriptionField = z
  .string('must be a string')
  .max(ENDPOINT_LIMITS.description, `must be at most ${ENDPOINT_LIMITS.description} characters`)
  .refine((v) => plainText(v), 'must not contain control characters or line breaks')
  .meta({ description: 'What this endpoint is for, for you', example: 'Orders at the shop' });

export const endpointStatusSchema = z.enum(['enabled', 'disabled']).meta({
  id: 'WebhookEndpointStatus',
  description:
    'enabled: events are sent. disabled: by you, by an operator, or after it answered 410 or failed for days; its events are kept as skipped and can be replayed once enabled.',
});

export const webhookEndpointSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'The endpoint', example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
    url: z.string().meta({ example: 'https://store.example/webhooks/orders' }),
    enabledEvents: z.array(z.string()).meta({ description: 'Event names, or ["*"] for every event', example: ['*'] }),
    description: z.string().meta({ example: 'Orders at the shop' }),
    status: endpointStatusSchema,
    disabledReason: z.string().nullable().meta({ description: 'Why it is disabled; null when enabled', example: null }),
    createdAt: z.iso.datetime().meta({ example: '2030-01-01T12:00:00.000Z' }),
  })
  .meta({ id: 'WebhookEndpoint', description: 'Where some or all of your events go, signed with the endpoint’s own secret.' });

export const createdWebhookEndpointSchema = webhookEndpointSchema
  .extend({
    secret: z.string().meta({
      description: 'The endpoint’s signing secret (Standard Webhooks, whsec_…). Shown this once: store it now.',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
  })
  .meta({ id: 'CreatedWebhookEndpoint' });

export const webhookEndpointListSchema = z.strictObject({ data: z.array(webhookEndpointSchema).meta({ description: 'Oldest first' }) }).meta({
  id: 'WebhookEndpointList',
});

export const createWebhookEndpointSchema = z
  .strictObject({
    url: urlField,
    enabledEvents: enabledEventsSchema,
    description: descriptionField.optional(),
  })
  .meta({ id: 'WebhookEndpointCreate' });

export const updateWebhookEndpointSchema = z
  .strictObject({
    url: urlField.optional(),
    enabledEvents: enabledEventsSchema.optional(),
    description: descriptionField.optional(),
    status: endpointStatusSchema.optional().meta({ description: 'disabled stops its deliveries (kept as skipped); enabled starts them again' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one of url, enabledEvents, description, status', path: [] })
  .meta({ id: 'WebhookEndpointUpdate' });

export const rotatedSecretSchema = z
  .strictObject({
    id: z.uuid(),
    secret: z.string().meta({ description: 'The new signing secret, shown this once', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    previousSecretsExpireAt: z.iso.datetime().meta({ description: 'Until then every delivery carries a signature by the old and the new secret' }),
  })
  .meta({ id: 'RotatedWebhookSecret' });

export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;
export type CreatedWebhookEndpoint = z.output<typeof createdWebhookEndpointSchema>;
export type CreateWebhookEndpoint = z.output<typeof createWebhookEndpointSchema>;
export type UpdateWebhookEndpoint = z.output<typeof updateWebhookEndpointSchema>;
