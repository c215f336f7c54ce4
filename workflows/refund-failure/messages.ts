/**
 * The contract between the refund-failure workflow and what starts it (api/processor-events/, through
 * ./client.ts): a refund we recorded as succeeded that the processor then failed. Workflow-safe: types only.
 */

export function refundFailureWorkflowId(processor: string, eventId: string): string {
  return `refund-failure-${processor}-${eventId}`;
}

export interface RefundFailureInput {
  /** The processor's event, which names the workflow: one per event, ever. */
  eventId: string;
  /** Our refund (core/orders/refund-ledger.ts), found by the processor's id for it. */
  refundId: string;
  cartId: string;
  /** The processor's reason (Stripe: the refund's failure_reason), or refund_failed when it gives none. */
  failureCode: string;
}
