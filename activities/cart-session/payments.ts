import { ApplicationFailure } from '@temporalio/activity';
import { readCard } from '../../core/checkout/card-vault.js';
import { currencyOfCart, paymentReferenceOf, recordCartStatus, recordPaymentReference, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { ActivityMetrics } from '../metrics.js';
import type { CaptureResult, ChargeResult, PaymentProcessor, ThreeDSecureResult } from '../../core/checkout/payment-processor.js';
import { threeDSecureReturnUrl } from '../../core/checkout/three-d-secure.js';
import { PROCESSOR_UNAVAILABLE, processorCalls } from '../shared/processor-call.js';

/**
 * What the workflow learns of a charge. `threeDSecure` is absent only when the processor could not
 * tell; `requires_authentication` (only for a charge made with `threeDSecure: true`) carries where to
 * send the customer, never a card detail.
 */
export type PaymentOutcome =
  | { outcome: 'approved'; chargeId: string; threeDSecure?: ThreeDSecureResult }
  | { outcome: 'declined'; failureCode: string; threeDSecure?: ThreeDSecureResult }
  | { outcome: 'requires_authentication'; chargeId: string; redirectUrl: string };
export type PaymentLookup = { found: false } | { found: true; outcome: PaymentOutcome };

const toOutcome = (result: ChargeResult): PaymentOutcome => {
  const threeDSecure = result.outcome !== 'requires_authentication' && result.threeDSecure ? { threeDSecure: result.threeDSecure } : {};
  if (result.outcome === 'approved') return { outcome: 'approved', chargeId: result.chargeId, ...threeDSecure };
  if (result.outcome === 'declined') return { outcome: 'declined', failureCode: result.declineCode, ...threeDSecure };
  return { outcome: 'requires_authentication', chargeId: result.chargeId, redirectUrl: result.redirectUrl };
};

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

  /**
   * `threeDSecure`: the session can take the customer through a challenge (workflows/cart-session/
   * payment.ts, 1.1 sessions), so the processor gets our sealed `/3ds/return` link (the same one on every attempt).
   */
  const chargePayment = async (input: {
    cartId: string;
    cardToken: string;
    amount: number;
    currency: string;
    captureMethod?: 'manual';
    threeDSecure?: boolean;
    /**
     * The session's `processing` step (a 1.2 session's first charge), written to the ledger before the
     * charge, in place of a local activity of its own. Idempotent, like the charge: a retry writes it again.
     */
    processing?: CartStatusChange;
  }): Promise<PaymentOutcome> => {
    if (input.processing) await recordCartStatus(db, config.keyring, input.processing);
    const card = await readCard(db, config.keyring, input.cardToken);
    if (!card) return { outcome: 'declined', failureCode: 'card_unavailable' };
    const returnUrl = input.threeDSecure ? threeDSecureReturnUrl(config, input.cartId) : undefined;
    let result: ChargeResult;
    try {
      result = await answered({ cartId: input.cartId }, () =>
        paymentProcessor.charge({
          idempotencyKey: input.cartId,
          amount: input.amount,
          currency: input.currency,
          card,
          ...(input.captureMethod ? { captureMethod: input.captureMethod } : {}),
          ...(returnUrl ? { returnUrl } : {}),
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
      const [chargeId, currency] = await Promise.all([paymentReferenceOf(db, input.cartId), currencyOfCart(db, input.cartId)]);
      if (!chargeId || !currency) throw new Error(`cart ${input.cartId} has no payment reference to capture`);
      const result = await answered({ cartId: input.cartId }, () =>
        paymentProcessor.capture({ idempotencyKey: `${input.cartId}:capture`, chargeId, amount: input.amount, currency }),
      );
      logger.info({ cartId: input.cartId, processor, chargeId, amount: input.amount, outcome: result.outcome }, 'payment capture');
      return result;
    },

    /**
     * After the customer came back from their bank's challenge: how the payment stands now (approved,
     * declined, or still waiting on the cardholder). Retried by the workflow on no answer.
     */
    async confirmAuthentication(input: { cartId: string; chargeId: string }): Promise<PaymentOutcome> {
      if (!paymentProcessor.authenticationResult) throw new Error(`processor ${processor} started a 3-D Secure challenge it cannot answer for`);
      const authenticationResult = paymentProcessor.authenticationResult.bind(paymentProcessor);
      const result = await answered({ cartId: input.cartId }, () => authenticationResult({ idempotencyKey: input.cartId, chargeId: input.chargeId }));
      await keepReference(input.cartId, result);
      logger.info({ cartId: input.cartId, processor, outcome: result.outcome }, 'payment authentication');
      return toOutcome(result);
    },

    /** Voids the cart's charge (by the reference the ledger holds, if any), or by key alone a charge that may still land. */
    async voidPayment(input: { cartId: string; chargeId?: string }): Promise<void> {
      const chargeId = input.chargeId ?? (await paymentReferenceOf(db, input.cartId));
      await answered({ cartId: input.cartId }, () => paymentProcessor.void({ idempotencyKey: input.cartId, ...(chargeId ? { chargeId } : {}) }));
      logger.info({ cartId: input.cartId, processor, chargeId }, 'payment voided');
    },
  };
}
