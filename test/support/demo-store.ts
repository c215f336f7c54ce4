import { randomBytes } from 'node:crypto';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { startDemoStore } from '../../demo-store/server.js';
import type { TestStack } from './test-stack.js';

/**
 * The demo store selling through the test stack as `merchant`, listening on 127.0.0.1:`port` and
 * known to its customers as `baseUrl`; its owner signs in with `ownerPassword` (random by default).
 */
export async function startDemoStoreOnStack(
  stack: Pick<TestStack, 'apiUrl' | 'checkoutUrl'>,
  merchant: CreatedMerchant,
  options: {
    port: number;
    baseUrl: string;
    ordersFile: string;
    log: (line: string) => void;
    ownerPassword?: string;
    accountingWebhookSecret?: string;
    maxOrders?: number;
    ordersPerMinute?: number;
  },
) {
  const ownerPassword = options.ownerPassword ?? randomBytes(18).toString('base64url');
  const store = await startDemoStore({
    ...options,
    ownerPassword,
    hostname: '127.0.0.1',
    publicUrl: 'https://store.example',
    apiBaseUrl: stack.apiUrl,
    checkoutBaseUrl: stack.checkoutUrl,
    platformUuid: merchant.platformUuid,
    apiKey: merchant.apiKey,
    webhookSecret: merchant.webhookSecret,
  });
  return { ...store, ownerPassword };
}

/** Signs the store owner in, as the sign-in form does: the session's Set-Cookie, and the Cookie header to send it back. */
export async function signInToDemoStore(baseUrl: string, password: string): Promise<{ setCookie: string; cookie: string; response: Response }> {
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password, next: '/orders' }).toString(),
    redirect: 'manual',
  });
  const setCookie = response.headers.get('set-cookie') ?? '';
  return { setCookie, cookie: setCookie.split(';')[0] ?? '', response };
}
