import { z } from 'zod';
import type { Config } from '../config.js';
import { CART_PROVENANCES } from './cart-provenance.js';
import { itemSchema } from './cart-schema.js';
import type { OrderRow } from './order-views.js';
import { offersRecovery } from './cart-recovery.js';
import { RECOVERY_LINK_DAYS, recoveryUrl } from './recovery-token.js';
import { THREE_D_SECURE_RESULTS } from './payment-processor.js';
import { CANCELLED_BY, CAPTURE_METHODS, CART_STATUSES } from './session.js';
import { customerSchema, openCustomer } from './customer-seal.js';
import { DISPUTE_STATUSES } from './dispute-model.js';

/**
 * The one order model (docs/decisions/order-model.md): what the Order API answers for an order and
 * what every webhook event carries as `data`, built from the ledger by one function, so the two never
 * disagree. Every field is always present; one that does not apply yet is null.
 */

const isoTime = (description: string) => z.iso.datetime().meta({ description, example: '2030-01-01T12:00:00.000Z' });

export const cartStatusSchema = z.enum(CART_STATUSES).meta({
  id: 'OrderStatus',
  description:
    'pending → processing → paid (or failed, cancelled, abandoned); a paid order becomes partially_refunded, then refunded. With captureMethod manual: processing → authorized → paid (captured) or cancelled (voided, or the hold expired).',
});

export const threeDSecureSchema = z
  .strictObject({
    result: z.enum(THREE_D_SECURE_RESULTS).meta({
      description:
        'authenticated: the cardholder passed their bank’s challenge; frictionless: the bank authenticated them without one; failed: the challenge was failed or never answered (failureCode authentication_failed or authentication_timeout); not_required: no authentication was asked for.',
      example: 'authenticated',
    }),
  })
  .meta({ id: 'ThreeDSecure', description: 'What 3-D Secure (SCA) did for the payment.' });

export const cartProvenanceSchema = z.enum(CART_PROVENANCES).meta({
  id: 'CartProvenance',
  description:
    'api_key: the create-cart request carried your API key. public: it did not, so anyone who knows your platformUuid may have made this cart; fulfil only a cartId you created yourself, for the amount you expect.',
  example: 'api_key',
});

export const orderPaymentSchema = z
  .strictObject({
    brand: z.string().meta({ example: 'visa' }),
    last4: z.string().meta({ example: '1111' }),
    threeDSecure: threeDSecureSchema
      .optional()
      .meta({ description: 'Once the payment has an outcome; absent while it is processing, and for orders paid before 3-D Secure' }),
    savedCard: z.boolean().meta({
      description:
        'true: the customer paid with a card they had saved with us (docs/saved-cards.md), chosen after the one-time code; false: they typed the card',
      example: false,
    }),
  })
  .meta({ id: 'OrderPayment', description: 'The card, as brand and last 4 digits only, what 3-D Secure did, and whether it was a saved card.' });

export const orderDisputeSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The processor’s dispute id (Stripe: dp_…; the sandbox: dp_sandbox_…)', example: 'dp_1Q2w3E4r5T6y7U8i' }),
    amount: z.int().meta({ description: 'What the customer disputes, minor units of the order’s currency', example: 4498 }),
    reason: z
      .string()
      .meta({ description: 'The card network’s reason, as the processor names it (fraudulent, product_not_received, …)', example: 'product_not_received' }),
    status: z.enum(DISPUTE_STATUSES).meta({
      description:
        'needs_response: answer by evidenceDueBy (POST /v2/merchant/orders/{cartId}/dispute/evidence or …/dispute/accept); under_review: your evidence is with the card network; won: the money stays yours; lost: it went back to the customer',
      example: 'needs_response',
    }),
    evidenceDueBy: isoTime('The last moment to answer; no answer by then loses the dispute'),
    reminder: z
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Only on the reminder events (order_updated) sent as evidenceDueBy nears: which reminder, from 1', example: 1 }),
  })
  .meta({ id: 'OrderDispute', description: 'A dispute (chargeback) of the order’s payment: the latest one, when there were several.' });

export const orderDataSchema = z
  // Open, not strict: Order and order_refunded's data extend it (allOf), which additionalProperties: false would refuse.
  .object({
    cartId: z.string().meta({ example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
    status: cartStatusSchema,
    amount: z.int().meta({ description: 'The cart total (Σ price × quantity), minor units; what was captured is capturedAmount', example: 4498 }),
    currency: z.string().meta({ description: 'ISO 4217, as the cart was created', example: 'EUR' }),
    country: z.string().meta({ description: 'As the cart was created (ISO 3166-1, alpha-2 or alpha-3)', example: 'FR' }),
    captureMethod: z
      .enum(CAPTURE_METHODS)
      .meta({ description: 'As the cart was created: automatic, or manual (authorize, then capture)', example: 'automatic' }),
    capturedAmount: z.int().nullable().meta({
      description:
        'What was captured, minor units: the amount once paid automatically, a manual capture’s amount (refunds are held to it); null before any capture',
      example: 4498,
    }),
    refundedTotal: z.int().meta({ description: 'Sum of the succeeded refunds, minor units; 0 when none', example: 0 }),
    payment: orderPaymentSchema.nullable().meta({ description: 'The card, once the customer paid or tried to; null before a payment' }),
    failureCode: z.string().nullable().meta({
      description:
        'Why a failed session failed (card_declined, insufficient_funds, expired_card, incorrect_cvc, incorrect_number, processing_error, authentication_required, authentication_failed, authentication_timeout, processor_error, not_a_test_card, otp_locked, capture_declined), why a hold was voided (authorization_expired); null otherwise',
      example: null,
    }),
    cancelledBy: z.enum(CANCELLED_BY).nullable().meta({
      description:
        'Who ended a cancelled session: customer (Cancel on the page) or merchant (the expire endpoint, or a void); null on every other status, when the hold timer ended it, and for sessions cancelled before 1.1',
      example: null,
    }),
    customer: customerSchema.nullable().meta({ description: 'The contact the customer verified; null before the code was verified' }),
    items: z.array(itemSchema).meta({ description: 'The lines as given at cart creation (Item: as create-cart takes them)' }),
    extra: z.record(z.string(), z.string()).meta({ description: 'Your metadata, echoed exactly as given at cart creation', example: { orderRef: 'order-42' } }),
    createdWith: cartProvenanceSchema,
    paymentLinkId: z.string().nullable().meta({
      description:
        'The payment link this session was opened from (POST /v2/merchant/payment-links; its sessions say createdWith api_key, since you made the link with your key); null for a cart you created with create-cart',
      example: null,
    }),
    retryOf: z.string().nullable().meta({
      description:
        'The cartId of the failed session this one retries (POST /v2/merchant/carts/{cartId}/retry): the same store and cart, a second chance at paying for the same order of yours. Follow it to your order; null for a cart you created.',
      example: null,
    }),
    retryRoot: z.string().nullable().meta({
      description:
        'With retryOf: the cartId of the first session of the chain of retries this one belongs to (the cart you created), however many retries ago and through a recovery between them, so your order is found without walking retryOf back; null for a cart you created.',
      example: null,
    }),
    recoveryUrl: z
      .string()
      .nullable()
      .meta({
        description: `On an abandoned session of a cart created with recovery.enabled: the link that brings the customer back, {CHECKOUT_BASE_URL}/r/<token>, valid ${RECOVERY_LINK_DAYS} days after the abandonment. It opens a new session of the same cart (its order says recoveredFrom), the same one on every visit until paid. Send it to your customer; it carries neither the cartId nor the contact. Null otherwise, and on a session that was itself a recovery or a retry made since one: an order has one recovery.`,
        example: null,
      }),
    recoveredFrom: z.string().nullable().meta({
      description:
        'The cartId of the abandoned session whose recoveryUrl opened this one: the same store and cart, a new cartId. Follow it to your order; null for every other cart.',
      example: null,
    }),
    dispute: orderDisputeSchema.nullable().meta({ description: 'The order’s dispute (chargeback), once the customer disputed the payment; null otherwise' }),
    earlyFraudWarningAt: isoTime(
      'When the processor warned that the card’s issuer reported this payment as likely fraudulent (Stripe: an early fraud warning); consider a refund before a dispute. Null otherwise',
    ).nullable(),
    createdAt: isoTime('When the cart was created'),
    paidAt: isoTime('When the payment succeeded (with captureMethod manual: when the card was authorized); null before').nullable(),
  })
  .meta({ id: 'OrderData', description: 'An order (a cart session): what the Order API answers and what every webhook event carries as data.' });
export type OrderData = z.output<typeof orderDataSchema>;

/** What building an order needs besides its row: the keyring opens the contact and seals the recovery link, under the service's URL. */
export type OrderContext = Pick<Config, 'keyring' | 'checkoutBaseUrl'>;

/**
 * An abandoned session's recovery link, when its cart asked for one and it was not itself a recovery:
 * from the row alone (abandoned at its expiresOn), so the event and the Order API give the same URL.
 */
const recoveryUrlOf = (ctx: OrderContext, row: OrderRow): string | null => (offersRecovery(row) ? recoveryUrl(ctx, row.cartId, row.expiresOn) : null);

/** The order as the ledger holds it now, the customer's contact unsealed: the Order API's and the events' one builder. */
export function orderDataOf(row: OrderRow, ctx: OrderContext): OrderData {
  return {
    cartId: row.cartId,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    country: row.cart.country,
    captureMethod: row.cart.captureMethod ?? 'automatic',
    capturedAmount: row.capturedAmount,
    refundedTotal: row.refundedAmount,
    payment: row.payment,
    failureCode: row.failureCode,
    cancelledBy: row.cancelledBy,
    customer: openCustomer(ctx.keyring, row.customerSealed),
    items: row.cart.items,
    extra: row.cart.extra,
    createdWith: row.createdWith,
    paymentLinkId: row.paymentLinkId,
    retryOf: row.retryOf,
    retryRoot: row.retryRoot,
    recoveryUrl: recoveryUrlOf(ctx, row),
    recoveredFrom: row.recoveredFrom,
    dispute: row.dispute && { ...row.dispute, evidenceDueBy: row.dispute.evidenceDueBy.toISOString() },
    earlyFraudWarningAt: row.earlyFraudWarningAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    paidAt: row.paidAt?.toISOString() ?? null,
  };
}
