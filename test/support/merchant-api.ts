import { expect } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { cartSessionDriver } from './cart-session-driver.js';
import type { TestStack } from './test-stack.js';

export type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }>; requestId: string };

/** The merchant API as a merchant's server calls it: over HTTP, with its API key. */
export function merchantApi(stack: Pick<TestStack, 'apiUrl'>, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}` };
  return {
    get: (path: string) => fetch(`${stack.apiUrl}/v2/merchant${path}`, { headers }),
    refund: (cartId: string, body: unknown, extraHeaders: Record<string, string> = {}) =>
      fetch(`${stack.apiUrl}/v2/merchant/orders/${encodeURIComponent(cartId)}/refunds`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', ...extraHeaders },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    expire: (cartId: string, extraHeaders: Record<string, string> = {}) =>
      fetch(`${stack.apiUrl}/v2/merchant/carts/${encodeURIComponent(cartId)}/expire`, { method: 'POST', headers: { ...headers, ...extraHeaders } }),
    capture: (cartId: string, body: unknown = {}, extraHeaders: Record<string, string> = {}) =>
      fetch(`${stack.apiUrl}/v2/merchant/orders/${encodeURIComponent(cartId)}/capture`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', ...extraHeaders },
        body: JSON.stringify(body),
      }),
    /** Any POST of the API by its full path (/v2/…), with a JSON body when given one. */
    post: (path: string, body?: unknown) =>
      fetch(`${stack.apiUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    void: (cartId: string, extraHeaders: Record<string, string> = {}) =>
      fetch(`${stack.apiUrl}/v2/merchant/orders/${encodeURIComponent(cartId)}/void`, { method: 'POST', headers: { ...headers, ...extraHeaders } }),
  };
}

/** Carts of one merchant taken through the checkout the way the hosted page does, to `paid` with the approved sandbox card. */
export function paidCarts(stack: TestStack, merchant: CreatedMerchant) {
  const driver = cartSessionDriver(stack, merchant.platformUuid);
  return {
    driver,
    async paidCart(): Promise<string> {
      const session = await driver.verifiedSession();
      const state = await driver.pay(session, SANDBOX_CARDS.approved);
      expect(state.status).toBe('paid');
      return session.cartId;
    },
  };
}
