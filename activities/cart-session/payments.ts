import { ApplicationFailure } from '@temporalio/activity';
import { readCard } from '../../core/checkout/card-vault.js';
import { currencyOfCart, paymentReferenceOf, recordCartStatus, recordPaymentReference, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { ActivityMetrics } from '../metrics.js';
import type { CaptureResult, ChargeRequest, ChargeResult, PaymentProcessor, ThreeDSecureResult } from '../../core/checkout/payment-processor.js';
import {
  confirmSavedCards,
  customerRefOf,
  dropPendingSavedCards,
  findSavedCard,
  markSavedCardUsed,
  recordPendingSavedCard,
} from '../../core/checkout/saved-cards.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { threeDSecureReturnUrl } from '../../core/checkout/three-d-secure.js';
import { whileHeartbeating } from '../shared/heartbeat.js';
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

/** What the session asks to charge: the vault's card (`cardToken`, with `save` on consent) or a saved card (`savedCardId`). */
export interface ChargeInput {
  cartId: string;
  cardToken?: string;
  savedCardId?: string;
  save?: boolean;
  /** The keyed digest of the contact the session verified (1.2 sessions): whose saved cards it may use or add to. */
  contactKey?: string;
  amount: number;
  currency: string;
  captureMethod?: 'manual';
  threeDSecure?: boolean;
  /**
   * The session's `processing` step (a 1.2 session's first charge), written to the ledger before the
   * charge, in place of a local activity of its own. Idempotent, like the charge: a retry writes it again.
   */
  processing?: CartStatusChange;
}

/** Opens the sandbox's simulated dispute of a cart just paid (the worker passes it, sandbox only: SANDBOX_CARDS.disputed). */
export type OpenSandboxDispute = (cartId: string) => Promise<void>;

export function createPaymentActivities(deps: {
  config: Config;
  db: Db;
  logger: Logger;
  paymentProcessor: PaymentProcessor;
  metrics: ActivityMetrics;
  openSandboxDispute?: OpenSandboxDispute;
}) {
  const { config, db, logger, paymentProcessor, metrics } = deps;
  const processor = paymentProcessor.name;
  const answered = processorCalls({ logger, processor });

  /**
   * An approval's reference goes into the ledger before the workflow hears of it, for void and refund
   * later; a card saved for this payment is offered from then on, or dropped with a decline.
   * `mayHaveSavedCard` is false only where the charge itself knows it saved none: a lookup or a 3-D
   * Secure confirmation runs without knowing what the charge did.
   */
  const keepReference = async (cartId: string, result: ChargeResult, mayHaveSavedCard = true): Promise<void> => {
    if (result.outcome === 'approved') {
      await recordPaymentReference(db, cartId, result.chargeId);
      if (mayHaveSavedCard) await confirmSavedCards(db, cartId);
    } else if (result.outcome === 'declined' && mayHaveSavedCard) await dropPendingSavedCards(db, cartId);
  };

  /**
   * One charge per cart: the cartId is the processor's idempotency key, so a retried activity (lost
   * response, worker restart) never charges twice. The card stays in the vault until the workflow
   * discards it, because a retry needs it again.
   *
   * `threeDSecure`: the session can take the customer through a challenge (workflows/cart-session/
   * payment.ts, 1.1 sessions), so the processor gets our sealed `/3ds/return` link (the same one on every attempt).
   * A 1.2 session paying with a saved card sends its id with the contact key it verified: the card is
   * charged only when it is that contact's (docs/saved-cards.md). With `save` (the customer's consent),
   * the vault's card is saved to that contact at the processor, then charged by its references.
   */
  const charge = async (input: ChargeInput): Promise<PaymentOutcome> => {
    if (input.processing) await recordCartStatus(db, config.keyring, input.processing);
    const returnUrl = input.threeDSecure ? threeDSecureReturnUrl(config, input.cartId) : undefined;
    const common = {
      idempotencyKey: input.cartId,
      amount: input.amount,
      currency: input.currency,
      ...(input.captureMethod ? { captureMethod: input.captureMethod } : {}),
      ...(returnUrl ? { returnUrl } : {}),
    };
    const charged = await chargeOf(input, common);
    if ('unavailable' in charged) return { outcome: 'declined', failureCode: 'card_unavailable' };
    const { result, card, savedCard } = charged;
    await keepReference(input.cartId, result, savedCard);
    if (result.outcome === 'approved' && input.captureMethod !== 'manual' && deps.openSandboxDispute && isSandboxDisputeCard(card)) {
      await deps.openSandboxDispute(input.cartId);
    }
    metrics.payments.inc({ outcome: result.outcome });
    logger.info(
      {
        cartId: input.cartId,
        processor,
        outcome: result.outcome,
        brand: card.brand,
        last4: card.last4,
        captureMethod: input.captureMethod ?? 'automatic',
        ...(input.savedCardId ? { savedCard: true } : {}),
        ...(input.save ? { saving: true } : {}),
      },
      'payment authorization',
    );
    return toOutcome(result);
  };

  /** A 1.3 session schedules the charge with a heartbeat timeout, so it heartbeats while the processor answers. */
  const chargePayment = (input: ChargeInput): Promise<PaymentOutcome> => whileHeartbeating(() => charge(input));

  /** The processor's answer, by the card the session names: a saved card, a card to save, or the vault's card. */
  async function chargeOf(
    input: ChargeInput,
    common: Omit<ChargeRequest, 'card'>,
  ): Promise<{ result: ChargeResult; card: { brand: string; last4: string }; savedCard: boolean } | { unavailable: true }> {
    const saveCard = paymentProcessor.saveCard?.bind(paymentProcessor);
    const chargeSaved = paymentProcessor.chargeSaved?.bind(paymentProcessor);
    if (input.savedCardId) {
      const saved = input.contactKey ? await findSavedCard(db, input.savedCardId, input.contactKey) : undefined;
      if (!saved || saved.processor !== processor || !chargeSaved) return { unavailable: true };
      const result = await call(input.cartId, () => chargeSaved({ ...common, saved: saved.reference }));
      if (result.outcome === 'approved') await markSavedCardUsed(db, saved.id);
      return { result, card: saved, savedCard: false };
    }
    const card = input.cardToken ? await readCard(db, config.keyring, input.cardToken) : undefined;
    if (!card) return { unavailable: true };
    if (input.save && input.contactKey && saveCard && chargeSaved) {
      const contactKey = input.contactKey;
      const customerRef = await customerRefOf(db, contactKey, processor);
      const kept = await call(input.cartId, () => saveCard({ idempotencyKey: input.cartId, card, ...(customerRef ? { customerRef } : {}) }));
      if (kept.outcome === 'declined') return { result: kept, card, savedCard: false };
      await recordPendingSavedCard(db, { contactKey, cartId: input.cartId, processor, ...kept });
      const result = await call(input.cartId, () => chargeSaved({ ...common, saved: kept.reference, keepForLater: true }));
      return { result, card, savedCard: true };
    }
    return { result: await call(input.cartId, () => paymentProcessor.charge({ ...common, card })), card, savedCard: false };
  }

  /** A processor call of the charge, counted when it goes unanswered. */
  async function call<T>(cartId: string, request: () => Promise<T>): Promise<T> {
    try {
      return await answered({ cartId }, request);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === PROCESSOR_UNAVAILABLE) metrics.payments.inc({ outcome: 'no_answer' });
      throw error;
    }
  }

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

/** The sandbox card that is disputed shortly after it pays (docs/webhooks.md, Disputes); a saved card carries no number. */
const isSandboxDisputeCard = (card: { brand: string; last4: string; pan?: string }): boolean => card.pan === SANDBOX_CARDS.disputed;
