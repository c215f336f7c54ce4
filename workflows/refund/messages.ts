/**
 * The contract between the refund workflow and what starts it (core/orders/request-refund.ts through
 * ./client.ts, called by the merchant API and the dashboard). Workflow-safe: types and constants only.
 */

export function refundWorkflowId(refundId: string): string {
  return `refund-${refundId}`;
}

export interface RefundInput {
  /** The refund's id, also its idempotency key at the processor: a retried refund refunds once. */
  refundId: string;
  cartId: string;
  platformUuid: string;
  /** Minor units, already reserved in the ledger. */
  amount: number;
}

export type RefundOutcome = { status: 'succeeded' } | { status: 'failed'; failureCode: string };

/**
 * The refund's reservation never became visible: the transaction that reserved it rolled back after
 * the workflow had started. Nothing was asked of the processor and there is no refund row to update.
 */
export const REFUND_NOT_RESERVED = 'not_reserved';
