import type { Db } from '../db/client.js';
import { hasCompletedAttempt } from './event-store.js';
import type { WebhookEventName } from './events.js';

const POLL_INTERVAL_MS = 100;

/**
 * For the hosted page's success redirect: waits until the first delivery attempt of the cart's
 * `event` has completed (whatever its outcome), so the merchant's success page usually already knows
 * the order. Resolves false on timeout and never throws: the customer's redirect must not depend on
 * the merchant, or on us, being up.
 */
export async function waitForFirstDeliveryAttempt(db: Db, cartId: string, event: WebhookEventName, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      // A stalled database must not stretch the wait past its bound either.
      const done = await Promise.race([
        hasCompletedAttempt(db, cartId, event),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))),
      ]);
      if (done) return true;
    } catch {
      // A database hiccup is no reason to hold the customer; keep trying until the deadline.
    }
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, left)));
  }
}
