import { proxyActivities } from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import { WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS } from '../../core/temporal/worker-loss.js';

/**
 * The session's calls to the payment processor, each with the retry policy its place in the process
 * needs. The cartId is the processor's idempotency key, so no retry charges, captures or voids twice.
 */

/**
 * A processor outage is retried a bounded number of times. Declines are results. After the last
 * attempt the outcome is unknown, which is never a decline: see ./payment.ts.
 */
export const { chargePayment } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** While an unanswered charge is resolved: one try each, the resolution loop sets the pace. */
export const { lookupPayment, chargePayment: chargePaymentOnce } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * The same charges for a 1.3 session, heartbeating: a charge that died with its worker is retried once
 * its heartbeats stop (seconds), not at its start-to-close timeout, while the customer waits on the Pay.
 */
export const { chargePayment: chargePaymentHeartbeating } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});
export const { chargePayment: chargePaymentOnceHeartbeating } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { maximumAttempts: 1 },
});

/**
 * A void that guards against a late approval must happen before the final event: retried until it does.
 * A capture too: an unanswered capture is asked again under its own key until the processor answers.
 */
export const { voidPayment, capturePayment } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * After the customer's return from a 3-D Secure challenge, the page waits on the answer: a few quick
 * tries, then the outcome counts as unknown (the payment is voided, `processor_error`).
 */
export const { confirmAuthentication } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4 },
});
