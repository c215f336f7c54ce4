import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../api/docs/openapi.js';
import { CART_EVENT_EXAMPLES, TEST_EVENT_EXAMPLE } from '../../core/webhooks/event-examples.js';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT, webhookEventBodySchema } from '../../core/webhooks/events.js';
import { renderWebhookDocs, WEBHOOK_DOCS_COMMAND, WEBHOOK_DOCS_PATH } from '../../scripts/webhook-docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the webhook event reference', () => {
  it('in docs/webhooks.md is what core/webhooks/events.ts renders today', () => {
    const committed = readFileSync(path.join(ROOT, WEBHOOK_DOCS_PATH), 'utf8');
    expect(committed === renderWebhookDocs(committed), `${WEBHOOK_DOCS_PATH} is stale: run \`${WEBHOOK_DOCS_COMMAND}\` and commit it`).toBe(true);
  });

  it('has examples its schemas accept, each a cart event as the builder types it', () => {
    for (const name of WEBHOOK_EVENT_NAMES) {
      expect(CART_EVENT_SCHEMAS[name].parse(CART_EVENT_EXAMPLES[name])).toEqual(CART_EVENT_EXAMPLES[name]);
      expect(webhookEventBodySchema.parse(CART_EVENT_EXAMPLES[name])).toEqual(CART_EVENT_EXAMPLES[name]);
    }
    expect(testEventBodySchema.parse(TEST_EVENT_EXAMPLE)).toEqual(TEST_EVENT_EXAMPLE);
  });

  it('is the OpenAPI document’s webhooks: every event and the test event, with the signature headers and a 2xx answer', () => {
    const document = buildOpenApiDocument({ apiBaseUrl: 'http://localhost:3000', checkoutBaseUrl: 'http://localhost:3001', environment: 'sandbox' });
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT].sort());
    for (const webhook of Object.values(document.webhooks ?? {})) {
      const operation = 'post' in webhook ? webhook.post : undefined;
      const headers = (operation?.parameters ?? []).map((p) => ('name' in p ? p.name : undefined));
      expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Client-Signature']));
      expect(Object.keys(operation?.responses ?? {})).toContain('2XX');
    }
  });
});
