import { randomBytes } from 'node:crypto';
import { bindBrowser } from '../../core/checkout/cart-ledger.js';
import { bindingDigest } from '../../web/checkout/browser-binding.js';
import type { TestStack } from './test-stack.js';

/**
 * The Cookie header of a browser bound to a session a test verified through the workflow's updates
 * (cartSessionDriver), as the page binds the browser that enters the code (web/checkout/browser-binding.ts):
 * without it, every step after the code shows any browser the way to prove the contact instead.
 */
export async function boundBrowserCookie(stack: Pick<TestStack, 'db'>, cartId: string): Promise<string> {
  const value = randomBytes(32).toString('base64url');
  await bindBrowser(stack.db, cartId, bindingDigest(value));
  return `checkout_browser=${value}`;
}
