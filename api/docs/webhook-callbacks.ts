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

const callback = (event: string, schema: z.ZodType) => ({
  '{$request.body#/url}': {
    post: {
      summary: `The ${event} event, posted to the endpoint's url`,
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentOf(schema)}` } } } },
      responses: { '2XX': { description: 'Received; see the webhooks section for the headers and what each answer does.' } },
    },
  },
});

const callbacks: CallbacksObject = {};
for (const name of WEBHOOK_EVENT_NAMES) callbacks[name] = callback(name, CART_EVENT_SCHEMAS[name]);
callbacks[WEBHOOK_TEST_EVENT] = callback(WEBHOOK_TEST_EVENT, testEventBodySchema);
export const WEBHOOK_CALLBACKS = callbacks;
