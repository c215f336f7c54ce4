import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** Gitignored: the types are generated from the running API's document on every run, never committed. */
const CLIENT_DIR = path.resolve(import.meta.dirname, '../../.openapi/generated-client');

/**
 * A merchant's integration written against the generated types alone, with openapi-fetch: what issue 38's
 * developer does. It is type-checked (a wrong path, field or event name fails) and then run against the stack.
 */
const MERCHANT_INTEGRATION = `import createClient from 'openapi-fetch';
import type { paths, webhooks } from './schema.js';

type CreateCartBody = paths['/v2/public/api/cart/']['post']['requestBody']['content']['application/json'];
export type WebhookEvent = { [E in keyof webhooks]: webhooks[E]['post']['requestBody']['content']['application/json'] }[keyof webhooks];

export function merchant(baseUrl: string, apiKey: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${apiKey}\` } });
  const fail = (what: string, error: unknown): never => {
    throw new Error(\`\${what}: \${JSON.stringify(error)}\`);
  };
  return {
    async createCart(body: CreateCartBody): Promise<string> {
      const { data, error } = await api.POST('/v2/public/api/cart/', { body });
      return data ? data.data.cartId : fail('create-cart', error);
    },
    async capture(cartId: string, amount: number) {
      const { data, error } = await api.POST('/v2/merchant/orders/{cartId}/capture', { params: { path: { cartId } }, body: { amount } });
      return data ? { status: data.status, capturedAmount: data.capturedAmount } : fail('capture', error);
    },
    async refund(cartId: string, amount: number) {
      const { data, error } = await api.POST('/v2/merchant/orders/{cartId}/refunds', { params: { path: { cartId } }, body: { amount } });
      return data ? { status: data.status, amount: data.amount } : fail('refund', error);
    },
    async eventTypes(cartId: string) {
      const { data, error } = await api.GET('/v2/merchant/events', { params: { query: { cartId } } });
      return data ? data.data.map((event) => event.type) : fail('events', error);
    },
  };
}

/** What a receiver makes of a verified body: every event, narrowed by its name. */
export function summary(rawBody: string): string {
  const event = JSON.parse(rawBody) as WebhookEvent;
  switch (event.event) {
    case 'order_created':
      return \`\${event.sequence} created \${event.data.status} \${event.data.amount} \${event.data.currency}\`;
    case 'order_updated':
      return \`\${event.sequence} updated \${event.data.status} captured \${event.data.capturedAmount ?? 0}\`;
    case 'order_refunded':
      return \`\${event.sequence} refunded \${event.data.refund.amount} of \${event.data.capturedAmount ?? event.data.amount}\`;
    case 'order_cancelled':
      return \`\${event.sequence} cancelled by \${event.data.cancelledBy ?? 'the hold timer'}\`;
    case 'order_abandoned':
      return \`\${event.sequence} abandoned\`;
    case 'order_disputed':
      return \`\${event.sequence} disputed \${event.data.dispute?.amount ?? 0} by \${event.data.dispute?.evidenceDueBy ?? 'no deadline'}\`;
    case 'webhook_test':
      return event.data.message;
  }
}
`;

interface MerchantIntegration {
  merchant(
    baseUrl: string,
    apiKey: string,
  ): {
    createCart(body: unknown): Promise<string>;
    capture(cartId: string, amount: number): Promise<unknown>;
    refund(cartId: string, amount: number): Promise<unknown>;
    eventTypes(cartId: string): Promise<string[]>;
  };
  summary(rawBody: string): string;
}

/** tsc's verdict on the integration, as `tsc --noEmit --strict` would give it. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    noImplicitReturns: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${d.file ? path.basename(d.file.fileName) : ''}:${at ? at.line + 1 : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('a client generated from /openapi.json with openapi-typescript and openapi-fetch', () => {
  const stack = useTestStack();
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  let integrationFile: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    merchant = await stack.createMerchant({ name: 'Generated Client Store', webhookUrl: receiver.url });
    const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    mkdirSync(CLIENT_DIR, { recursive: true });
    writeFileSync(path.join(CLIENT_DIR, 'schema.ts'), astToString(await openapiTS(document)));
    integrationFile = path.join(CLIENT_DIR, 'merchant.ts');
    writeFileSync(integrationFile, MERCHANT_INTEGRATION);
  });
  afterAll(() => receiver?.close());

  it('type-checks a merchant integration written against the generated types, webhooks included', () => {
    expect(typeErrors(integrationFile)).toEqual([]);
  }, 120_000);

  it('runs it: creates a manual-capture cart, captures and refunds it, lists its events and reads each webhook as a typed event', async () => {
    const integration = (await import(pathToFileURL(integrationFile).href)) as MerchantIntegration;
    const client = integration.merchant(stack.apiUrl, merchant.apiKey);
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.cart.captureMethod = 'manual';
    const cartId = await client.createCart(request);

    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = { cartId, handle: driver.handleOf(cartId) };
    await driver.sendCode(session);
    await driver.verify(session, await driver.sentCode(session));
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('authorized');

    expect(await client.capture(cartId, 3000)).toEqual({ status: 'paid', capturedAmount: 3000 });
    expect(await client.refund(cartId, 1000)).toEqual({ status: 'succeeded', amount: 1000 });
    const received = await waitFor(
      () => {
        const bodies = [...receiver.processed.values()].map((r) => r.rawBody).filter((body) => body.includes(cartId));
        return bodies.length === 3 ? bodies : undefined;
      },
      { timeoutMs: 30_000, what: `3 webhooks for ${cartId}` },
    );
    expect(received.map(integration.summary).sort()).toEqual(['1 created authorized 4498 EUR', '2 updated paid captured 3000', '3 refunded 1000 of 3000']);
    expect(await client.eventTypes(cartId)).toEqual(['order_refunded', 'order_updated', 'order_created']);
  });
});
