/**
 * The contract between the late-outcome workflow and what starts it (api/processor-events/, through
 * ./client.ts): what the processor said after our session had decided. Workflow-safe: types only.
 */

export function lateOutcomeWorkflowId(processor: string, eventId: string): string {
  return `late-outcome-${processor}-${eventId}`;
}

export type LateOutcomeInput =
  /** A payment the processor approved for a cart whose session ended without an order (abandoned, failed, cancelled). */
  | { kind: 'late_payment'; eventId: string; cartId: string; chargeId: string; captured: boolean }
  /** The card's issuer reported the order's payment as likely fraudulent (Stripe: an early fraud warning). */
  | { kind: 'fraud_warning'; eventId: string; cartId: string; warnedAt: string };

export type LateOutcomeResult = 'voided' | 'refunded' | 'order_exists' | 'marked';
