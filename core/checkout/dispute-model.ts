/**
 * What a dispute (chargeback) is, for the order model, the merchant's answer and the dispute workflow:
 * workflow-safe (no Node built-in, no I/O). Stripe's statuses fold into ours: warning_* and
 * needs_response are `needs_response`, under_review and warning_under_review `under_review`, and
 * warning_closed (an inquiry that never became a chargeback) `won`.
 */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const isDisputeClosed = (status: DisputeStatus): boolean => status === 'won' || status === 'lost';

/** What the processor says of a dispute, as the workflow is given it (a processor event, or the sandbox). */
export interface DisputeFacts {
  status: DisputeStatus;
  /** Minor units of the order's currency. */
  amount: number;
  /** The card network's reason as the processor names it (Stripe: fraudulent, product_not_received, …). */
  reason: string;
  /** ISO 8601. */
  evidenceDueBy: string;
}

/** The merchant's answer as the dispute workflow hears of it: never the evidence itself, which stays sealed in the ledger. */
export type DisputeAnswer = 'evidence' | 'accept';

/** The failure type of an answer the processor refused (activities/dispute/index.ts): the workflow does not ask again. */
export const DISPUTE_ANSWER_REFUSED = 'DisputeAnswerRefused';
