import { ActivityFailure, ApplicationFailure, condition, patched, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { DisputeActivities } from '../../activities/dispute/index.js';
import { DISPUTE_ANSWER_REFUSED, isDisputeClosed, type DisputeAnswer, type DisputeFacts, type DisputeStatus } from '../../core/checkout/dispute-model.js';
import { RELEASE_1_3 } from '../release-patches.js';
import { disputeAnsweredSignal, disputeUpdatedSignal, type DisputeInput } from './messages.js';

/** The ledger and the merchant's events must not be lost: retried until they succeed. */
const { recordDisputeStep } = proxyActivities<DisputeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * The merchant's answer at the processor: asked again until it answers (repeating an answer it has is no
 * error), within the few days a dispute leaves; a refusal (the answer came too late) fails the attempt for
 * good, and the dispute goes on to the processor's word on it.
 */
const { sendDisputeAnswer } = proxyActivities<DisputeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: [DISPUTE_ANSWER_REFUSED] },
});

const isRefusal = (err: unknown) => err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === DISPUTE_ANSWER_REFUSED;

const words = (status: DisputeStatus) => status.replace('_', ' ');

/**
 * One dispute of a paid order, from the processor's first word to won or lost: the ledger and
 * `order_disputed`, reminders as evidenceDueBy nears (durable timers), the merchant's answer sent to the
 * processor, and `order_updated` at each status.
 */
export async function dispute(input: DisputeInput): Promise<DisputeStatus> {
  const { disputeId, cartId } = input;
  let latest: DisputeFacts = input.opened;
  let answer: DisputeAnswer | undefined;
  setHandler(disputeUpdatedSignal, (facts) => {
    // A closed dispute stays closed whatever arrives after, in whatever order.
    if (!isDisputeClosed(latest.status)) latest = facts;
  });
  setHandler(disputeAnsweredSignal, (given) => {
    answer ??= given;
  });

  const describe = (facts: DisputeFacts) =>
    `dispute ${disputeId} of cart ${cartId}: ${words(facts.status)}, ${facts.amount} (minor units), ${facts.reason}, evidence due by ${facts.evidenceDueBy}`;
  const record = async (facts: DisputeFacts, step: { opening?: true; reminder?: number } = {}) => {
    await recordDisputeStep({ disputeId, cartId, facts, ...step });
    setCurrentDetails(describe(facts));
  };

  await record(latest, { opening: true });
  let recorded = latest.status;
  let sent = false;
  let reviewSince: number | undefined;
  const dueAt = () => Date.parse(latest.evidenceDueBy);
  // Reminders whose moment had passed when the dispute opened are not sent late, one after another.
  const reminderTimes = [...input.remindersBeforeMs].sort((a, b) => b - a).map((before) => dueAt() - before);
  let nextReminder = reminderTimes.findIndex((at) => at > Date.now());
  if (nextReminder < 0) nextReminder = reminderTimes.length;

  while (!isDisputeClosed(recorded)) {
    const waitingForAnswer = recorded === 'needs_response' && answer === undefined;
    const wakeAt = Math.min(
      waitingForAnswer && nextReminder < reminderTimes.length ? reminderTimes[nextReminder]! : Infinity,
      input.decidedBy === 'sandbox' && waitingForAnswer ? dueAt() : Infinity,
      input.decidedBy === 'sandbox' && reviewSince !== undefined ? reviewSince + input.sandboxReviewMs : Infinity,
    );
    const timeout = Number.isFinite(wakeAt) ? Math.max(0, wakeAt - Date.now()) : undefined;
    const woke = () => latest.status !== recorded || (answer !== undefined && !sent);
    if (timeout === undefined) await condition(woke);
    else await condition(woke, timeout);

    if (latest.status !== recorded) {
      await record(latest);
      recorded = latest.status;
      if (recorded === 'under_review') reviewSince ??= Date.now();
      continue;
    }
    if (answer !== undefined && !sent) {
      setCurrentDetails(`sending the merchant's answer (${answer}) for dispute ${disputeId} to the processor`);
      try {
        const status = await sendDisputeAnswer({ disputeId, answer });
        if (!isDisputeClosed(latest.status)) latest = { ...latest, status };
      } catch (err) {
        // A refusal used to fail the workflow, so the processor's won or lost was never recorded; such a history replays as it ran.
        if (!isRefusal(err) || !patched(RELEASE_1_3)) throw err;
        setCurrentDetails(`the processor refused the merchant's answer (${answer}) for dispute ${disputeId}; waiting for its decision`);
      }
      sent = true;
      continue;
    }
    const now = Date.now();
    if (waitingForAnswer && nextReminder < reminderTimes.length && now >= reminderTimes[nextReminder]!) {
      nextReminder += 1;
      await record(latest, { reminder: nextReminder });
    } else if (input.decidedBy === 'sandbox' && waitingForAnswer && now >= dueAt()) {
      latest = { ...latest, status: 'lost' };
    } else if (input.decidedBy === 'sandbox' && reviewSince !== undefined && now >= reviewSince + input.sandboxReviewMs) {
      latest = { ...latest, status: 'won' };
    }
  }
  return recorded;
}
