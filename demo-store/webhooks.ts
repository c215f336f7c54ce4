import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';
import { KEPT_REJECTIONS, KEPT_UNMATCHED, switchToRetry, type OrderStore, type StoreOrder, type WebhookRecord } from './order-store.js';

/**
 * The store's webhook endpoint, as a merchant should write one:
 * 1. verify the Standard Webhooks signature over the raw bytes received, before reading anything;
 * 2. deduplicate by event id (retries and replays repeat it);
 * 3. order by `sequence` per cart: a late, older event is recorded but never rolls the order back;
 * 4. fulfil only on `order_created`, the payment's confirmation, of a cart created with this store's API
 *    key (`data.createdWith: "api_key"`), whose cartId it created itself for that order's total: create-cart
 *    also takes carts without the key, so a stranger can make and pay a cart for this store and have it
 *    sent a genuine, signed `order_created` (`data.createdWith: "public"`) with any amount and `extra`;
 *    the key, and the specification's "keep a mapping from merchant order to cart", are what stop it. A ship-later
 *    order's `order_created` says `authorized`: the card is held, nothing is charged, so the order waits
 *    for shipment; it is fulfilled when the capture's `order_updated` (`paid`) confirms the charge;
 * 5. follow `data.retryOf`: a cart the store does not know may be the retry of one of its orders' carts
 *    (Try another card after a decline), whose answer the store never got; its events are that order's;
 * 6. persist, then answer 2xx quickly (anything slow, like shipping, would run after the answer).
 */

const eventSchema = z.looseObject({
  id: z.string(),
  event: z.enum(['order_created', 'order_updated', 'order_cancelled', 'order_abandoned', 'order_refunded']),
  createdAt: z.string(),
  sequence: z.number().int().positive(),
  data: z.looseObject({
    cartId: z.string(),
    /** `api_key`: created with the merchant's API key; `public`: by anyone who knows the platformUuid. */
    createdWith: z.string().optional(),
    /** The failed cart this cart retries; null (or absent, before retries) for a cart the store created. */
    retryOf: z.string().nullable().optional(),
    status: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    extra: z.record(z.string(), z.string()).default({}),
    refund: z.object({ id: z.string(), amount: z.number().int(), refundedTotal: z.number().int(), reason: z.string().nullable() }).optional(),
  }),
});
export type WebhookEvent = z.infer<typeof eventSchema>;

export type WebhookOutcome =
  { status: 200; result: 'applied' | 'duplicate' | 'unmatched'; event: WebhookEvent } | { status: 400; result: 'rejected'; reason: string };

/** Request headers as one record (Hono's `c.req.header()`), names in any case. */
export type HeaderRecord = Record<string, string>;

export function createWebhookReceiver(deps: { secret: string; store: OrderStore; now?: () => Date }) {
  const verifier = new Webhook(deps.secret);
  const now = () => (deps.now ?? (() => new Date()))().toISOString();

  async function reject(rawBody: Buffer, headers: HeaderRecord, reason: string): Promise<WebhookOutcome> {
    // Unverified, so never acted on; shown on the order it claims to be about, so the store's
    // operator sees forged or mis-signed deliveries. Bounded, as anyone can send them.
    const claimed = unverifiedCartId(rawBody);
    const order = claimed ? deps.store.findByCartId(claimed) : undefined;
    if (order && order.webhooks.filter((w) => !w.verified).length < KEPT_REJECTIONS) {
      const eventId = lowerCased(headers)['webhook-id'] ?? '(none)';
      await deps.store.update(() => {
        order.webhooks.push({
          eventId,
          event: '(unverified)',
          sequence: null,
          verified: false,
          status: null,
          receivedAt: now(),
          deliveries: 1,
          note: reason,
          refundId: null,
          // The cart it claims to be about, unverified like the rest.
          cartId: claimed ?? null,
        });
      });
    }
    return { status: 400, result: 'rejected', reason };
  }

  return {
    async receive(rawBody: Buffer, headers: HeaderRecord): Promise<WebhookOutcome> {
      let payload: unknown;
      try {
        payload = verifier.verify(rawBody, lowerCased(headers));
      } catch (err) {
        if (err instanceof WebhookVerificationError || err instanceof SyntaxError) return reject(rawBody, headers, err.message);
        throw err;
      }
      const parsed = eventSchema.safeParse(payload);
      if (!parsed.success) return reject(rawBody, headers, `not an event this store understands: ${parsed.error.issues[0]?.message ?? ''}`);
      const event = parsed.data;
      // The id is signed as a header; the body must be the event it names.
      if (event.id !== lowerCased(headers)['webhook-id']) return reject(rawBody, headers, 'the body is not the event named by webhook-id');

      // Only a cart the store made itself, with its API key, for this order and its total. Kept apart
      // otherwise, the latest KEPT_UNMATCHED only: anyone can make such events.
      const retried = event.data.retryOf ? deps.store.findByCartId(event.data.retryOf) : undefined;
      const order = deps.store.findByCartId(event.data.cartId) ?? (retried?.cartId === event.data.retryOf ? retried : undefined);
      if (
        !order ||
        event.data.createdWith !== 'api_key' ||
        order.id !== event.data.extra.orderId ||
        order.total !== event.data.amount ||
        order.currency !== event.data.currency
      ) {
        const unmatched = deps.store.unmatched();
        if (!unmatched.some((w) => w.eventId === event.id)) {
          await deps.store.update((file) => {
            file.unmatched.push({ ...record(event, now()), cartId: event.data.cartId });
            file.unmatched.splice(0, Math.max(0, file.unmatched.length - KEPT_UNMATCHED));
          });
        }
        return { status: 200, result: 'unmatched', event };
      }

      const seen = order.webhooks.find((w) => w.verified && w.eventId === event.id);
      if (seen) {
        await deps.store.update(() => {
          seen.deliveries += 1;
        });
        return { status: 200, result: 'duplicate', event };
      }
      await deps.store.update(() => {
        // A retry of the order's cart the store did not record (the retry's answer was lost): it is the order's payment now.
        if (order.cartId !== event.data.cartId && !order.earlierCartIds.includes(event.data.cartId) && event.data.retryOf)
          switchToRetry(order, event.data.retryOf, event.data.cartId);
        apply(order, event, now());
      });
      return { status: 200, result: 'applied', event };
    },
  };
}

function apply(order: StoreOrder, event: WebhookEvent, receivedAt: string) {
  order.webhooks.push(record(event, receivedAt));
  // Sequences count one cart's events: a late event of an earlier, failed cart is kept, never applied.
  if (event.data.cartId === order.cartId && event.sequence > order.appliedSequence) {
    order.status = event.data.status;
    order.appliedSequence = event.sequence;
  }
  // The payment is confirmed whatever arrived before: fulfil once, and only here. An authorization is
  // not a payment: a ship-later order is fulfilled once its capture is confirmed (paid), after its order_created.
  if (!order.fulfilledAt && confirmsPayment(order, event)) order.fulfilledAt = receivedAt;
  if (event.event === 'order_refunded' && event.data.refund) {
    const refund = event.data.refund;
    order.refundedTotal = Math.max(order.refundedTotal, refund.refundedTotal);
    const requested = order.refunds.find((r) => r.refundId === refund.id);
    if (requested) {
      requested.status = 'succeeded';
      requested.confirmedAt = receivedAt;
    }
  }
}

/**
 * Whether the payment of the order is now confirmed: its `order_created` said `paid`, or it said
 * `authorized` and a capture (`order_updated`, `paid`) has come too, in whichever order they arrived.
 */
function confirmsPayment(order: StoreOrder, event: WebhookEvent): boolean {
  if (event.event === 'order_created' && event.data.status !== 'authorized') return true;
  const created = order.webhooks.some((w) => w.verified && w.event === 'order_created');
  const captured = order.webhooks.some((w) => w.verified && w.event === 'order_updated' && w.status === 'paid');
  return created && captured;
}

function record(event: WebhookEvent, receivedAt: string): WebhookRecord {
  return {
    eventId: event.id,
    event: event.event,
    sequence: event.sequence,
    verified: true,
    status: event.data.status,
    receivedAt,
    deliveries: 1,
    note: null,
    refundId: event.data.refund?.id ?? null,
    cartId: event.data.cartId,
  };
}

function lowerCased(headers: HeaderRecord): HeaderRecord {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function unverifiedCartId(rawBody: Buffer): string | undefined {
  try {
    const cartId = (JSON.parse(rawBody.toString('utf8')) as { data?: { cartId?: unknown } }).data?.cartId;
    return typeof cartId === 'string' ? cartId : undefined;
  } catch {
    return undefined;
  }
}
