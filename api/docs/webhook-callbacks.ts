import type { CallbacksObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT } from '../../core/webhooks/events.js';

/**
 * The create-endpoint operation's `callbacks`: the requests we send to the URL it registers, one per
 * event, each body a $ref to the component the `webhooks` section describes (api/docs/openapi.ts).
 * They say the same as `webhooks` from a place client generators walk: oapi-codegen, with its default
 * pruning, keeps only the schemas paths reach, and generates webhook types that refer to them
 * (docs/clients.md).
 */
const componentOf = (schema: z.ZodType): string => {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('an event schema without a component id');
  return id;
};

/** What a delivery expects of the endpoint's answer: `webhooks` and the callbacks say it alike. */
export const DELIVERY_ANSWERS = {
  '2XX': {
    description:
      'Received: any 2xx within WEBHOOK_TIMEOUT_MS (15 s) ends the delivery. Answer first, then work; anything else, a redirect or no answer is retried on the schedule of docs/webhooks.md.',
  },
  410: { description: 'Gone: the endpoint is disabled and its events are kept as skipped, replayable once you enable it again.' },
};
export const TEST_EVENT_ANSWERS = {
  '2XX': { description: 'Your verification works. The answer is shown to you in the dashboard; nothing is retried.' },
};

const callback = (event: string, schema: z.ZodType, responses: typeof DELIVERY_ANSWERS | typeof TEST_EVENT_ANSWERS) => ({
  '{$request.body#/url}': {
    post: {
      summary: `The ${event} event, posted to the endpoint's url`,
      description: 'Signed as the webhooks section of this document describes, with its headers.',
      // Signed, not authenticated by a scheme of ours: the receiver checks the signature headers.
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentOf(schema)}` } } } },
      responses,
    },
  },
});

const callbacks: CallbacksObject = {};
for (const name of WEBHOOK_EVENT_NAMES) callbacks[name] = callback(name, CART_EVENT_SCHEMAS[name], DELIVERY_ANSWERS);
callbacks[WEBHOOK_TEST_EVENT] = callback(WEBHOOK_TEST_EVENT, testEventBodySchema, TEST_EVENT_ANSWERS);
export const WEBHOOK_CALLBACKS = callbacks;
