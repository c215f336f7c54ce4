import { isDisputeClosed } from '../../core/checkout/dispute-model.js';
import { disputeEvidenceOf, findDispute, recordDisputeAnswer } from '../../core/checkout/disputes.js';
import type { DisputeEvidence } from '../../core/checkout/dispute-evidence.js';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import { findOwnerCart } from '../../core/checkout/order-views.js';
import type { Keyring } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { orderNotFoundMessage } from '../../core/orders/orders.js';
import type { disputeWorkflows } from '../../workflows/dispute/client.js';
import { ApiError } from '../errors.js';

export type DisputeAnswerRequest = { answer: 'evidence'; evidence: DisputeEvidence } | { answer: 'accept' };

/**
 * The merchant's answer to their order's open dispute (the API and the dashboard): kept once in the
 * ledger, the evidence sealed, then told to the dispute's workflow, which sends it to the processor. The
 * same answer again is safe (told again) while the dispute is open; another answer (other evidence
 * included), or one to a dispute no longer needing one, is refused.
 */
export async function answerDispute(
  deps: { db: Db; keyring: Keyring; disputes: Pick<ReturnType<typeof disputeWorkflows>, 'answered'> },
  owner: CartOwner,
  cartId: string,
  request: DisputeAnswerRequest,
): Promise<void> {
  const order = await findOwnerCart(deps.db, owner, cartId);
  if (!order)
    throw new ApiError('NOT_FOUND', orderNotFoundMessage(owner.environment), [
      { path: 'cartId', message: `${cartId} is not one of your orders in this environment` },
    ]);
  if (!order.dispute) throw new ApiError('DISPUTE_NOT_OPEN', 'This order has no dispute to answer.', [{ path: 'cartId', message: 'has no dispute' }]);
  const disputeId = order.dispute.id;
  if (!(await recordDisputeAnswer(deps.db, deps.keyring, { disputeId, ...request }))) {
    const refusal = await repeatRefusal(deps, disputeId, request);
    if (refusal) throw new ApiError('DISPUTE_NOT_OPEN', refusal, [{ path: 'cartId', message: `its dispute ${disputeId} takes no answer now` }]);
  }
  await deps.disputes.answered(disputeId, request.answer);
}

/**
 * Why an answer the ledger did not take is refused, or undefined when it repeats the one taken (the
 * same acceptance, or the same evidence) while the dispute is still open, which is told again.
 */
async function repeatRefusal(deps: { db: Db; keyring: Keyring }, disputeId: string, request: DisputeAnswerRequest): Promise<string | undefined> {
  const dispute = await findDispute(deps.db, disputeId);
  if (!dispute || isDisputeClosed(dispute.status)) return `This dispute is ${dispute?.status ?? 'closed'}: it no longer takes an answer.`;
  if (dispute.answer) {
    const same =
      dispute.answer === request.answer &&
      (request.answer === 'accept' || canonicalJson(await disputeEvidenceOf(deps.db, deps.keyring, disputeId)) === canonicalJson(request.evidence));
    return same
      ? undefined
      : `This dispute was already answered (${dispute.answer}); a dispute takes one answer, and the first one is what the processor gets.`;
  }
  if (dispute.status === 'needs_response')
    return `This dispute's evidence was due by ${dispute.evidenceDueBy.toISOString()}: the processor takes no answer after it, and decides the dispute without one.`;
  return `This dispute is ${dispute.status.replace('_', ' ')}: it no longer takes an answer.`;
}

/** A flat answer's fields in one order, so two spellings of the same evidence compare equal. */
const canonicalJson = (value: object | undefined) => value && JSON.stringify(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)));
