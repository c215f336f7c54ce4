import { afterAll, beforeAll } from 'vitest';
import type { CreatedMerchant } from '../../core/merchants/registration.js';
import { cartSessionDriver } from './cart-session-driver.js';
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
  afterAll(() => fixture.receiver?.close());
  return fixture;
}
