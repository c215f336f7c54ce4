import { ApplicationFailure } from '@temporalio/activity';
import { discardCartCards, readCard } from '../../core/checkout/card-vault.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { ProcessorUnavailableError, type PaymentProcessor } from '../../core/checkout/payment-processor.js';

export type PaymentOutcome = { outcome: 'approved'; authorizationId: string } | { outcome: 'declined'; failureCode: string };

/** ApplicationFailure type of a retryable processor outage; the workflow's retry policy bounds it. */
export const PROCESSOR_UNAVAILABLE = 'ProcessorUnavailable';

export function createPaymentActivities(deps: { config: Config; db: Db; logger: Logger; paymentProcessor: PaymentProcessor }) {
  const { config, db, logger, paymentProcessor } = deps;
  return {
    /**
     * One authorization per cart: the cartId is the processor's idempotency key, so a retried
     * activity (lost response, worker restart) never charges twice. The card stays in the vault
     * until the workflow discards it, because a retry needs it again.
     */
    async authorizePayment(input: { cartId: string; cardToken: string; amount: number; currency: string }): Promise<PaymentOutcome> {
      const card = await readCard(db, config.keyring, input.cardToken);
      if (!card) return { outcome: 'declined', failureCode: 'card_unavailable' };
      try {
        const result = await paymentProcessor.authorize({ idempotencyKey: input.cartId, amount: input.amount, currency: input.currency, card });
        logger.info(
          { cartId: input.cartId, processor: paymentProcessor.name, outcome: result.outcome, brand: card.brand, last4: card.last4 },
          'payment authorization',
        );
        return result.outcome === 'approved' ? result : { outcome: 'declined', failureCode: result.declineCode };
      } catch (error) {
        if (error instanceof ProcessorUnavailableError) {
          logger.warn({ cartId: input.cartId, processor: paymentProcessor.name, error: error.message }, 'payment processor unavailable');
          throw ApplicationFailure.retryable(error.message, PROCESSOR_UNAVAILABLE);
        }
        throw error;
      }
    },

    /** Removes every card the cart left in the vault: after the authorization, or when it never paid. */
    discardCards: (input: { cartId: string }): Promise<void> => discardCartCards(db, input.cartId),
  };
}
