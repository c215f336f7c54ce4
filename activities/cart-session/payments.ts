import { ApplicationFailure } from '@temporalio/activity';
import { readCard } from '../../core/checkout/card-vault.js';
import { paymentReferenceOf, recordPaymentReference } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { ActivityMetrics } from '../metrics.js';
import type { CaptureResult, ChargeResult, PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { PROCESSOR_UNAVAILABLE, processorCalls } from '../shared/processor-call.js';

export type PaymentOutcome = { outcome: 'approved'; chargeId: string } | { outcome: 'declined'; failureCode: string };
export type PaymentLookup = { found: false } | { found: true; outcome: PaymentOutcome };

const toOutcome = (result: ChargeResult): PaymentOutcome =>
  result.outcome === 'approved' ? { outcome: 'approved', chargeId: result.chargeId } : { outcome: 'declined', failureCode: result.declineCode };

export function createPaymentActivities(deps: { config: Config; db: Db; logger: Logger; paymentProcessor: PaymentProcessor; metrics: ActivityMetrics }) {
  const { config, db, logger, paymentProcessor, metrics } = deps;
  const processor = paymentProcessor.name;
  const answered = processorCalls({ logger, processor });

  /**
   * One charge per cart: the cartId is the processor's idempotency key, so a retried activity (lost
   * response, worker restart) never charges twice. The card stays in the vault until the workflow
   * discards it, because a retry needs it again.
   */
  /** An approval's reference goes into the ledger before the workflow hears of it, for void and refund later. */
  const keepReference = async (cartId: string, result: ChargeResult): Promise<void> => {
    if (result.outcome === 'approved') await recordPaymentReference(db, cartId, result.chargeId);
  };

  const chargePayment = async (input: {
    cartId: string;
    cardToken: string;
    amount: number;
    currency: string;
    captureMethod?: 'manual';
  }): Promise<PaymentOutcome> => {
    const card = await readCard(db, config.keyring, input.cardToken);
    if (!card) return { outcome: 'declined', failureCode: 'card_unavailable' };
    let result: ChargeResult;
    try {
      result = await answered({ cartId: input.cartId }, () =>
        paymentProcessor.charge({
          idempotencyKey: input.cartId,
          amount: input.amount,
          currency: input.currency,
          card,
          ...(input.captureMethod ? { captureMethod: input.captureMethod } : {}),
        }),
      );
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === PROCESSOR_UNAVAILABLE) metrics.payments.inc({ outcome: 'no_answer' });
      throw error;
    }
    await keepReference(input.cartId, result);
    metrics.payments.inc({ outcome: result.outcome });
    logger.info(
      { cartId: input.cartId, processor, outcome: result.outcome, brand: card.brand, last4: card.last4, captureMethod: input.captureMethod ?? 'automatic' },
      'payment authorization',
    );
    return toOutcome(result);
  };

  return {
    chargePayment,

    /** What the processor did for this cart's key, when a charge went unanswered. */
    async lookupPayment(input: { cartId: string }): Promise<PaymentLookup> {
      const found = await answered({ cartId: input.cartId }, () => paymentProcessor.lookup({ idempotencyKey: input.cartId }));
      if (found.found) await keepReference(input.cartId, found.result);
      logger.info({ cartId: input.cartId, processor, found: found.found, ...(found.found ? { outcome: found.result.outcome } : {}) }, 'payment lookup');
      return found.found ? { found: true, outcome: toOutcome(found.result) } : { found: false };
    },

    /**
     * Captures a manual authorization, all or part (the rest is released), under its own key
     * (`<cartId>:capture`): a retry after a lost answer captures once.
     */
    async capturePayment(input: { cartId: string; amount: number }): Promise<CaptureResult> {
      const chargeId = await paymentReferenceOf(db, input.cartId);
      if (!chargeId) throw new Error(`cart ${input.cartId} has no payment reference to capture`);
      const result = await answered({ cartId: input.cartId }, () =>
        paymentProcessor.capture({ idempotencyKey: `${input.cartId}:capture`, chargeId, amount: input.amount }),
      );
      logger.info({ cartId: input.cartId, processor, chargeId, amount: input.amount, outcome: result.outcome }, 'payment capture');
      return result;
    },

    /** Voids the cart's charge (by the reference the ledger holds, if any), or by key alone a charge that may still land. */
    async voidPayment(input: { cartId: string; chargeId?: string }): Promise<void> {
      const chargeId = input.chargeId ?? (await paymentReferenceOf(db, input.cartId));
      await answered({ cartId: input.cartId }, () => paymentProcessor.void({ idempotencyKey: input.cartId, ...(chargeId ? { chargeId } : {}) }));
      logger.info({ cartId: input.cartId, processor, chargeId }, 'payment voided');
    },
  };
}
