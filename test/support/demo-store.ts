import type { CreatedMerchant } from '../../core/merchants/registration.js';
import { startDemoStore } from '../../demo-store/server.js';
import type { TestStack } from './test-stack.js';

/**
 * The demo store selling through the test stack as `merchant`, listening on 127.0.0.1:`port` and
 * known to its customers as `baseUrl`.
 */
export function startDemoStoreOnStack(
  stack: Pick<TestStack, 'apiUrl' | 'checkoutUrl'>,
  merchant: CreatedMerchant,
  options: { port: number; baseUrl: string; ordersFile: string; log: (line: string) => void },
) {
  return startDemoStore({
    ...options,
    hostname: '127.0.0.1',
    publicUrl: 'https://store.example',
    apiBaseUrl: stack.apiUrl,
    checkoutBaseUrl: stack.checkoutUrl,
    platformUuid: merchant.platformUuid,
    apiKey: merchant.apiKey,
    webhookSecret: merchant.webhookSecret,
  });
}
