import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { duration, money } from './cart-session/operator-details.js';

type Summarize = (input: Record<string, unknown>) => string;

const str = (value: unknown) => (typeof value === 'string' ? value : '');
const amountOf = (input: Record<string, unknown>) =>
  typeof input.amount === 'number' && typeof input.currency === 'string' ? money(input.amount, input.currency) : 'the cart';

/**
 * Each activity's summary, from its input: ids, amounts, statuses and event names only. The contact
 * sendOtp carries and the card token of a charge never appear (test/unit/operator-details.test.ts).
 */
const ACTIVITY_SUMMARIES: Record<string, Summarize> = {
  sendOtp: () => 'send the one-time code to the contact the customer gave',
  // A 1.2 charge writes the processing step itself before charging (./cart-session/recording.ts).
  chargePayment: (i) => `${i.processing ? 'ledger: processing; ' : ''}charge ${amountOf(i)}`,
  lookupPayment: () => 'ask the processor what became of the charge',
  voidPayment: () => 'void the charge, in case a late approval lands',
  recordCartStatus: (i) => `ledger: ${str(i.status)}${i.failureCode ? ` (${str(i.failureCode)})` : ''}`,
  recordCartEvent: (i) => `record ${str(i.event)} for the merchant's webhook`,
  discardCards: () => "delete the session's cards from the vault",
  recordSessionStep: (i) => {
    const status = (typeof i.status === 'object' && i.status !== null ? i.status : {}) as Record<string, unknown>;
    const event = (typeof i.event === 'object' && i.event !== null ? i.event : undefined) as Record<string, unknown> | undefined;
    return [
      `ledger: ${str(status.status)}${status.failureCode ? ` (${str(status.failureCode)})` : ''}`,
      ...(event ? [`${str(event.event)} recorded and sent to the merchant`] : []),
      ...(i.discardCards ? ["the session's cards deleted from the vault"] : []),
    ].join('; ');
  },
  deliverWebhook: (i) =>
    `deliver webhook event ${str(i.eventId)} to the merchant's endpoint${i.trigger && i.trigger !== 'scheduled' ? ` (${str(i.trigger)})` : ''}`,
  confirmRefundReservation: () => 'confirm the refund reserved in the ledger',
  refundCharge: (i) => `refund ${typeof i.amount === 'number' ? i.amount : '?'} (minor units) of cart ${str(i.cartId)} at the processor`,
  settleRefund: () => 'settle the refund in the ledger',
  failRefund: (i) => `refund refused: ${str(i.failureCode)}; release the reservation`,
  merchantDomainsToVerify: () => "list the merchant's domains to verify",
  productionDomainsToVerify: () => "list production merchants' domains to check again",
  verifyDomain: (i) => `check that ${str(i.domain)} publishes its verification token`,
  checkPageIntegrity: () => 'walk every payment page as a browser would; compare with the inventory and header baseline; alert on differences',
  recordDisputeStep: (i) => {
    const facts = (typeof i.facts === 'object' && i.facts !== null ? i.facts : {}) as Record<string, unknown>;
    const step = i.opening ? 'order_disputed' : typeof i.reminder === 'number' ? `reminder ${i.reminder} (order_updated)` : 'order_updated';
    return `ledger: dispute ${str(i.disputeId)} ${str(facts.status).replace('_', ' ')}; ${step} recorded and sent to the merchant`;
  },
  sendDisputeAnswer: (i) => `send the merchant's answer (${str(i.answer)}) to dispute ${str(i.disputeId)} at the processor`,
  settleLatePayment: (i) => `${i.captured ? 'refund' : 'void'} late payment ${str(i.chargeId)} of cart ${str(i.cartId)} unless it has its order`,
  markEarlyFraudWarning: (i) => `ledger: early fraud warning on cart ${str(i.cartId)}`,
  purgeCardVault: (i) => `delete vault cards older than ${typeof i.olderThanMs === 'number' ? duration(i.olderThanMs) : '?'} window`,
};

export function activitySummary(activityType: string, args: unknown[]): string {
  const input = (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as Record<string, unknown>;
  return ACTIVITY_SUMMARIES[activityType]?.(input) ?? activityType;
}

/**
 * Gives every activity and timer a summary unless its call set one, so the event history reads
 * "charge €39.00" rather than `chargePayment`. Registered by worker/create-worker.ts.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) =>
        next(input.options.summary ? input : { ...input, options: { ...input.options, summary: activitySummary(input.activityType, input.args) } }),
      scheduleLocalActivity: (input, next) =>
        next(input.options.summary ? input : { ...input, options: { ...input.options, summary: activitySummary(input.activityType, input.args) } }),
      startTimer: (input, next) =>
        next(input.options?.summary ? input : { ...input, options: { ...input.options, summary: `${duration(input.durationMs)} wait` } }),
    },
  ],
});
