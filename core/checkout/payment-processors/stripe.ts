import type { DisputeEvidence } from '../dispute-evidence.js';
import type { DisputeStatus } from '../dispute-model.js';
import Stripe from 'stripe';
import {
  DisputeAnswerRefusedError,
  ProcessorUnavailableError,
  type CaptureRequest,
  type CaptureResult,
  type ChargeRequest,
  type ChargeResult,
  type DeclineCode,
  type LookupResult,
  type PaymentProcessor,
  type RefundRequest,
  type RefundResult,
  type SaveCardRequest,
  type SaveCardResult,
  type SavedCardReference,
  type SavedChargeRequest,
  type ThreeDSecureResult,
  type VoidRequest,
} from '../payment-processor.js';
import { adapterAmount } from '../processor-amounts.js';
import { STRIPE_CURRENCIES } from './stripe-currencies.js';

export interface StripeSettings {
  secretKey: string;
  /** `https://api.stripe.com` in production; tests point it at stripe-mock. */
  apiBase: string;
  /** For unit tests that answer from recorded responses instead of the network. */
  httpClient?: Stripe.HttpClient;
}

/** The metadata field carrying our idempotency key on each PaymentIntent: lookup and void-by-key search on it. */
export const KEY_METADATA = 'checkout_key';

/**
 * Stripe's reasons a customer may be told. Lost, stolen, fraudulent and pick-up cards (and every
 * reason not listed) become `card_declined`, as Stripe advises: saying why would tip off a fraudster.
 */
const DECLINE_CODES: Record<string, DeclineCode> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  incorrect_number: 'incorrect_number',
  invalid_number: 'incorrect_number',
  invalid_expiry_month: 'expired_card',
  invalid_expiry_year: 'expired_card',
  processing_error: 'processing_error',
  authentication_required: 'authentication_required',
};

const declineOf = (...reasons: Array<string | null | undefined>): DeclineCode => {
  for (const reason of reasons) if (reason && DECLINE_CODES[reason]) return DECLINE_CODES[reason];
  return 'card_declined';
};

/**
 * What 3-D Secure did, from the charge's card details (expand `latest_charge`): none ran, `not_required`;
 * an unexpanded or missing charge cannot tell, undefined.
 */
export function threeDSecureOfCharge(charge: Stripe.PaymentIntent['latest_charge']): ThreeDSecureResult | undefined {
  if (!charge || typeof charge === 'string') return undefined;
  const secure = charge.payment_method_details?.card?.three_d_secure;
  if (!secure) return 'not_required';
  if (secure.result === 'failed') return 'failed';
  if (secure.result === 'authenticated') return secure.authentication_flow === 'frictionless' ? 'frictionless' : 'authenticated';
  // The issuer took part without a challenge (liability shifts all the same).
  if (secure.result === 'attempt_acknowledged') return 'frictionless';
  return 'not_required';
}

/** Stripe's code for a payment whose 3-D Secure challenge was failed or abandoned. */
const AUTHENTICATION_FAILURE = 'payment_intent_authentication_failure';

/** Statuses Stripe can still cancel (https://docs.stripe.com/api/payment_intents/cancel). */
const CANCELABLE = new Set<Stripe.PaymentIntent.Status>(['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action']);

/**
 * What a PaymentIntent's state means for us. `processing` (and any status we do not know) is no
 * answer yet: the caller gets ProcessorUnavailableError and the payment-certainty path (lookup, void
 * by key) settles it.
 */
export function resultOfPaymentIntent(intent: Stripe.PaymentIntent): ChargeResult {
  const threeDSecure = threeDSecureOfCharge(intent.latest_charge);
  const known = threeDSecure ? { threeDSecure } : {};
  switch (intent.status) {
    // requires_capture: a manual-capture intent, authorized; the hold the merchant captures or voids later.
    case 'succeeded':
    case 'requires_capture':
      return { outcome: 'approved', chargeId: intent.id, ...known };
    case 'requires_action': {
      // A challenge at the cardholder's bank (`return_url` given). Any other action (an SDK flow) this page cannot show.
      const redirectUrl = intent.next_action?.type === 'redirect_to_url' ? intent.next_action.redirect_to_url?.url : undefined;
      if (redirectUrl) return { outcome: 'requires_authentication', chargeId: intent.id, redirectUrl };
      return { outcome: 'declined', declineCode: 'authentication_required' };
    }
    case 'requires_payment_method':
    case 'canceled': {
      const error = intent.last_payment_error;
      if (error?.code === AUTHENTICATION_FAILURE) return { outcome: 'declined', declineCode: 'authentication_failed', threeDSecure: 'failed' };
      return { outcome: 'declined', declineCode: declineOf(error?.decline_code, error?.code), ...known };
    }
    default:
      throw new ProcessorUnavailableError(`stripe: payment ${intent.id} is ${intent.status}, no outcome yet`);
  }
}

/**
 * Stripe's error as our answer: a card error is a decline; no answer (network, timeout, 5xx, rate
 * limit) is ProcessorUnavailableError; anything else (bad key, bad request) is our bug and says so.
 * Messages carry Stripe's codes and request id only, never the parameters sent.
 */
export function resultOfStripeError(error: unknown): ChargeResult {
  if (error instanceof Stripe.errors.StripeCardError) return { outcome: 'declined', declineCode: declineOf(error.decline_code, error.code) };
  throw translatedError(error);
}

/**
 * Stripe refuses a refund it can never make (charge gone, already refunded, more than what remains)
 * with an invalid-request error: those are refusals, which release the reserved amount. Anything
 * else stays an error, and no answer stays unknown.
 */
export function resultOfStripeRefundError(error: unknown): RefundResult {
  if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode !== undefined && error.statusCode < 500) {
    return { outcome: 'declined', declineCode: error.code === 'resource_missing' ? 'charge_not_found' : 'refund_declined' };
  }
  throw translatedError(error);
}

/** Stripe refuses a capture it can no longer make (the authorization expired or was canceled) with an invalid-request error. */
export function resultOfStripeCaptureError(error: unknown): CaptureResult {
  if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode !== undefined && error.statusCode < 500) {
    return { outcome: 'declined', declineCode: 'capture_declined' };
  }
  throw translatedError(error);
}

function translatedError(error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  const what = `stripe: ${error.type}${error.code ? ` ${error.code}` : ''}${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}${error.requestId ? ` request ${error.requestId}` : ''}`;
  const noAnswer =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    (error.statusCode !== undefined && error.statusCode >= 500);
  return noAnswer ? new ProcessorUnavailableError(what) : new Error(what);
}

/** An amount in Stripe's units for its currency (core/checkout/payment-processors/stripe-currencies.ts). */
const stripeAmount = (isoAmount: number, currency: string): number => adapterAmount(STRIPE_CURRENCIES, 'stripe', currency, isoAmount);

const searchQuery = (idempotencyKey: string) => `metadata['${KEY_METADATA}']:'${idempotencyKey.replace(/['\\]/g, '\\$&')}'`;

/**
 * The processor port on Stripe's PaymentIntents API: one PaymentIntent per key, confirmed at once and
 * captured automatically, or with `capture_method: manual` left `requires_capture` until `capture`
 * (`void` cancels it, which releases the hold). Raw card numbers need Stripe's raw card data access (PCI DSS SAQ D); the
 * card goes from the vault to Stripe inside the charge activity and nowhere else.
 */
export function createStripePaymentProcessor(settings: StripeSettings): PaymentProcessor {
  const base = new URL(settings.apiBase);
  const stripe = new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port || (base.protocol === 'https:' ? 443 : 80),
    protocol: base.protocol === 'http:' ? 'http' : 'https',
    // Two tries of 10 s fit the activity's 30 s; the workflow retries beyond that under the same keys.
    timeout: 10_000,
    maxNetworkRetries: 1,
    telemetry: false,
    ...(settings.httpClient ? { httpClient: settings.httpClient } : {}),
  });

  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      throw translatedError(error);
    }
  };

  /** A dispute answer: Stripe refuses one past its deadline, or to a closed dispute, with an invalid-request error, and asking again changes nothing. */
  const answerCall = async (request: () => Promise<Stripe.Dispute>): Promise<Stripe.Dispute> => {
    try {
      return await request();
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode !== undefined && error.statusCode < 500) {
        throw new DisputeAnswerRefusedError(`stripe refused the dispute answer: ${error.code ?? error.type} (HTTP ${error.statusCode})`);
      }
      throw translatedError(error);
    }
  };

  /** The PaymentIntents made under this key (normally one). Search is eventually consistent: a second-old intent may be missing. */
  const intentsOf = async (idempotencyKey: string): Promise<Stripe.PaymentIntent[]> => {
    const found = await call(() => stripe.paymentIntents.search({ query: searchQuery(idempotencyKey), limit: 10 }));
    // Never trust a match we did not ask for: acting on another payment's intent would void someone else's order.
    return found.data.filter((intent) => intent.metadata?.[KEY_METADATA] === idempotencyKey);
  };

  /** Money back for one intent: cancel while Stripe can, refund once captured. */
  const undo = async (intent: Stripe.PaymentIntent, idempotencyKey: string): Promise<void> => {
    if (intent.status === 'succeeded') {
      await call(() =>
        stripe.refunds.create({ payment_intent: intent.id, reason: 'requested_by_customer' }, { idempotencyKey: `${idempotencyKey}:void-refund` }),
      );
    } else if (CANCELABLE.has(intent.status)) {
      await call(() => stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `${idempotencyKey}:void` }));
    } else if (intent.status === 'processing') {
      throw new ProcessorUnavailableError(`stripe: payment ${intent.id} is still processing and cannot be voided yet`);
    }
  };

  const createPaymentMethod = (idempotencyKey: string, card: ChargeRequest['card']) =>
    stripe.paymentMethods.create(
      { type: 'card', card: { number: card.pan, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvv } },
      { idempotencyKey: `${idempotencyKey}:payment-method` },
    );

  /** One PaymentIntent per key, confirmed at once, for the given PaymentMethod (and Customer). */
  const confirmIntent = (
    { idempotencyKey, amount, currency, captureMethod, returnUrl }: Omit<ChargeRequest, 'card'>,
    paying: { payment_method: string; customer?: string; setup_future_usage?: 'on_session' },
  ) =>
    stripe.paymentIntents.create(
      {
        amount: stripeAmount(amount, currency),
        currency: currency.toLowerCase(),
        ...paying,
        allowed_payment_method_types: ['card'],
        confirm: true,
        capture_method: captureMethod === 'manual' ? 'manual' : 'automatic',
        // With a return URL the cardholder's bank may challenge them (next_action.redirect_to_url);
        // without one no page of ours could show it: fail such a payment now rather than leave it waiting.
        ...(returnUrl ? { return_url: returnUrl } : { error_on_requires_action: true }),
        expand: ['latest_charge'],
        metadata: { [KEY_METADATA]: idempotencyKey },
      },
      { idempotencyKey },
    );

  return {
    name: 'stripe',

    async charge({ card, ...request }: ChargeRequest): Promise<ChargeResult> {
      try {
        const paymentMethod = await createPaymentMethod(request.idempotencyKey, card);
        return resultOfPaymentIntent(await confirmIntent(request, { payment_method: paymentMethod.id }));
      } catch (error) {
        return resultOfStripeError(error);
      }
    },

    /**
     * A Customer for the contact (or the one it already has), the card as a PaymentMethod attached to
     * it: each under a key derived from the payment's, so a retried save makes no second Customer.
     */
    async saveCard({ idempotencyKey, card, customerRef }: SaveCardRequest): Promise<SaveCardResult> {
      try {
        const customer = customerRef ?? (await stripe.customers.create({}, { idempotencyKey: `${idempotencyKey}:customer` })).id;
        const created = await createPaymentMethod(idempotencyKey, card);
        const attached = await stripe.paymentMethods.attach(created.id, { customer }, { idempotencyKey: `${idempotencyKey}:attach` });
        const details = attached.card;
        return {
          outcome: 'saved',
          reference: { customerRef: customer, paymentMethodRef: attached.id },
          brand: details?.brand ?? card.brand,
          last4: details?.last4 ?? card.last4,
          expMonth: details?.exp_month ?? card.expMonth,
          expYear: details?.exp_year ?? card.expYear,
        };
      } catch (error) {
        const result = resultOfStripeError(error);
        if (result.outcome !== 'declined') throw new Error('stripe: a failed save answered as a payment');
        return result;
      }
    },

    /** A PaymentIntent for the customer's saved PaymentMethod; when just saved, `setup_future_usage: on_session` keeps it usable. */
    async chargeSaved({ saved, keepForLater, ...request }: SavedChargeRequest): Promise<ChargeResult> {
      try {
        const intent = await confirmIntent(request, {
          payment_method: saved.paymentMethodRef,
          ...(saved.customerRef ? { customer: saved.customerRef } : {}),
          ...(keepForLater ? { setup_future_usage: 'on_session' as const } : {}),
        });
        return resultOfPaymentIntent(intent);
      } catch (error) {
        return resultOfStripeError(error);
      }
    },

    /** Detached, Stripe can no longer charge it; one already detached or deleted is gone as asked. */
    async detachCard({ paymentMethodRef }: SavedCardReference): Promise<void> {
      try {
        await stripe.paymentMethods.detach(paymentMethodRef, {}, { idempotencyKey: `${paymentMethodRef}:detach` });
      } catch (error) {
        if (error instanceof Stripe.errors.StripeInvalidRequestError && (error.code === 'resource_missing' || error.statusCode === 400)) return;
        throw translatedError(error);
      }
    },

    /** After the cardholder's return: the PaymentIntent as it stands, by id. */
    async authenticationResult({ chargeId }): Promise<ChargeResult> {
      return resultOfPaymentIntent(await call(() => stripe.paymentIntents.retrieve(chargeId, { expand: ['latest_charge'] })));
    },

    async lookup({ idempotencyKey }): Promise<LookupResult> {
      const intents = await intentsOf(idempotencyKey);
      const intent = intents.find((i) => i.status === 'succeeded') ?? intents[0];
      return intent ? { found: true, result: resultOfPaymentIntent(intent) } : { found: false };
    },

    async void({ idempotencyKey, chargeId }: VoidRequest): Promise<void> {
      const intents = chargeId ? [await call(() => stripe.paymentIntents.retrieve(chargeId))] : await intentsOf(idempotencyKey);
      for (const intent of intents) await undo(intent, idempotencyKey);
    },

    async capture({ idempotencyKey, chargeId, amount, currency }: CaptureRequest): Promise<CaptureResult> {
      const amountToCapture = stripeAmount(amount, currency);
      try {
        // amount_to_capture below the authorized amount releases the rest (https://docs.stripe.com/payments/place-a-hold-on-a-payment-method).
        const intent = await stripe.paymentIntents.capture(chargeId, { amount_to_capture: amountToCapture }, { idempotencyKey });
        if (intent.status === 'succeeded') return { outcome: 'captured' };
        if (intent.status === 'processing') throw new ProcessorUnavailableError(`stripe: capture of ${intent.id} is still processing`);
        return { outcome: 'declined', declineCode: 'capture_declined' };
      } catch (error) {
        if (error instanceof ProcessorUnavailableError) throw error;
        return resultOfStripeCaptureError(error);
      }
    },

    async refund({ idempotencyKey, chargeId, amount, currency }: RefundRequest): Promise<RefundResult> {
      const amountToRefund = stripeAmount(amount, currency);
      try {
        const refund = await stripe.refunds.create({ payment_intent: chargeId, amount: amountToRefund }, { idempotencyKey });
        return refund.status === 'failed' || refund.status === 'canceled'
          ? { outcome: 'declined', declineCode: 'refund_declined' }
          : { outcome: 'refunded', refundId: refund.id };
      } catch (error) {
        return resultOfStripeRefundError(error);
      }
    },

    async submitDisputeEvidence({ disputeId, evidence }): Promise<DisputeStatus> {
      const dispute = await answerCall(() => stripe.disputes.update(disputeId, { evidence: stripeEvidence(evidence), submit: true }));
      return disputeStatusOf(dispute.status);
    },

    async acceptDispute({ disputeId }): Promise<DisputeStatus> {
      const dispute = await answerCall(() => stripe.disputes.close(disputeId));
      return disputeStatusOf(dispute.status);
    },
  };
}

/** Stripe's dispute statuses (https://docs.stripe.com/api/disputes/object#dispute_object-status) in ours (core/checkout/dispute-model.ts). */
export function disputeStatusOf(status: Stripe.Dispute.Status): DisputeStatus {
  switch (status) {
    case 'won':
    case 'warning_closed':
      return 'won';
    case 'lost':
      return 'lost';
    case 'under_review':
    case 'warning_under_review':
      return 'under_review';
    default:
      return 'needs_response';
  }
}

/** Our evidence in Stripe's fields; the kind and the explanation go in its free text, as its dashboard does. */
function stripeEvidence(evidence: DisputeEvidence): Stripe.DisputeUpdateParams.Evidence {
  const explanation = `[${evidence.kind}] ${evidence.explanation}`;
  return {
    ...(evidence.kind === 'duplicate_charge' ? { duplicate_charge_explanation: evidence.explanation } : {}),
    ...(evidence.kind === 'cancellation' ? { cancellation_rebuttal: evidence.explanation } : {}),
    ...(evidence.kind === 'refund_policy' ? { refund_refusal_explanation: evidence.explanation } : {}),
    uncategorized_text: explanation,
    ...(evidence.productDescription ? { product_description: evidence.productDescription } : {}),
    ...(evidence.customerName ? { customer_name: evidence.customerName } : {}),
    ...(evidence.customerEmailAddress ? { customer_email_address: evidence.customerEmailAddress } : {}),
    ...(evidence.shippingCarrier ? { shipping_carrier: evidence.shippingCarrier } : {}),
    ...(evidence.shippingTrackingNumber ? { shipping_tracking_number: evidence.shippingTrackingNumber } : {}),
    ...(evidence.shippingDate ? { shipping_date: evidence.shippingDate } : {}),
    ...(evidence.serviceDate ? { service_date: evidence.serviceDate } : {}),
  };
}
