import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
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
const CHARGE = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
} satisfies ActivityOptions;

/** While an unanswered charge is resolved: one try each, the resolution loop sets the pace. */
const RESOLVING = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } } satisfies ActivityOptions;

/**
 * A 1.3 session's charges heartbeat: one that died with its worker is retried once its heartbeats stop
 * (seconds), not at its start-to-close timeout, while the customer waits on the Pay.
 */
const HEARTBEATING = { heartbeatTimeout: WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS } satisfies ActivityOptions;

export const { chargePayment } = proxyActivities<CartSessionActivities>(CHARGE);
export const { lookupPayment, chargePayment: chargePaymentOnce } = proxyActivities<CartSessionActivities>(RESOLVING);
export const { chargePayment: chargePaymentHeartbeating } = proxyActivities<CartSessionActivities>({ ...CHARGE, ...HEARTBEATING });
export const { chargePayment: chargePaymentOnceHeartbeating } = proxyActivities<CartSessionActivities>({ ...RESOLVING, ...HEARTBEATING });

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
