import { afterAll, beforeAll, expect } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { WebhookEventBody, WebhookEventName } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartSessionDriver } from './cart-session-driver.js';
import { postCart, validCartRequest } from './fixtures.js';
import { merchantApi } from './merchant-api.js';
import type { TestStack } from './test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

export interface ReceivingMerchant {
  /** The merchant's webhook endpoint: a real HTTP receiver. */
  receiver: WebhookReceiver;
  merchant: CreatedMerchant;
  /** The merchant API with its key. */
  api: ReturnType<typeof merchantApi>;
  /** Its customers' sessions, driven through the workflow's updates. */
  driver: ReturnType<typeof cartSessionDriver>;
  /** A cart created with the merchant's API key (`createdWith: "api_key"`), validCartRequest's but for `edit`; its cartId. */
  createCart(edit?: (request: CreateCartRequest) => void): Promise<string>;
  /** The events named `event` of one cart the receiver got so far whose signature verifies, as the merchant reads them. */
  signedEvents(cartId: string, event: WebhookEventName): WebhookEventBody[];
}

/**
 * A merchant of the file's stack whose webhooks reach a receiver of the file's own, with its API and
 * a session driver, set up before the file's tests and the receiver closed after them. Read its
 * fields inside tests: they are set once `beforeAll` has run.
 */
export function useReceivingMerchant(stack: TestStack, name: string): ReceivingMerchant {
  const fixture = {} as ReceivingMerchant;
  beforeAll(async () => {
    fixture.receiver = await startWebhookReceiver();
    fixture.merchant = await stack.createMerchant({ name, webhookUrl: fixture.receiver.url });
    fixture.api = merchantApi(stack, fixture.merchant.apiKey);
    fixture.driver = cartSessionDriver(stack, fixture.merchant.platformUuid);
  });
  fixture.createCart = async (edit = () => {}) => {
    const request = validCartRequest(fixture.merchant.platformUuid);
    edit(request);
    const res = await postCart(stack.apiUrl, request, { authorization: `Bearer ${fixture.merchant.apiKey}` });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { data: { cartId: string } }).data.cartId;
  };
  fixture.signedEvents = (cartId, event) =>
    fixture.receiver.requests
      .map((r) => verifyWebhook(r.rawBody, r.headers, fixture.merchant.webhookSecret))
      .flatMap((v) => (v.valid && v.event.data.cartId === cartId && v.event.event === event ? [v.event] : []));
  afterAll(() => fixture.receiver?.close());
  return fixture;
}
