import { defineSignal } from '@temporalio/workflow';
import type { DisputeAnswer, DisputeFacts } from '../../core/checkout/dispute-model.js';

/**
 * The contract between the dispute workflow and what starts or tells it something: the processor's
 * events (api/processor-events/), the sandbox (api/sandbox/) and the merchant's answer
 * (api/merchant/dispute-routes.ts), through ./client.ts. Workflow-safe: types and constants only.
 */

export function disputeWorkflowId(disputeId: string): string {
  return `dispute-${disputeId}`;
}

export interface DisputeInput {
  disputeId: string;
  cartId: string;
  platformUuid: string;
  /** The dispute as the processor first stated it. */
  opened: DisputeFacts;
  /** processor: its events close the dispute; sandbox: the simulated card network decides after `sandboxReviewMs`, and no answer by evidenceDueBy loses. */
  decidedBy: 'processor' | 'sandbox';
  /** Before evidenceDueBy, when each reminder goes to the merchant (config disputes.remindersBeforeMs). */
  remindersBeforeMs: number[];
  sandboxReviewMs: number;
}

/** The processor's latest word on the dispute (a `charge.dispute.*` event). */
export const disputeUpdatedSignal = defineSignal<[DisputeFacts]>('disputeUpdated');

/** The merchant answered: their answer is already recorded (the evidence sealed in the ledger), never carried here. */
export const disputeAnsweredSignal = defineSignal<[DisputeAnswer]>('disputeAnswered');
