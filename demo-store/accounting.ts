import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { z } from 'zod';
import type { OrderStore } from './order-store.js';

/**
 * The store's second webhook endpoint, its accounting system: subscribed to `order_refunded` only, with
 * a secret of its own, so a newcomer sees event filters at work. It verifies over the raw bytes like
 * the orders endpoint (./webhooks.ts) and books each refund once in the journal, whatever the retries.
 */

const refundEventSchema = z.looseObject({
  id: z.string(),
  event: z.literal('order_refunded'),
  data: z.looseObject({
    cartId: z.string(),
    currency: z.string(),
    refund: z.object({ id: z.string(), amount: z.number().int(), refundedTotal: z.number().int(), reason: z.string().nullable() }),
  }),
});

export type AccountingOutcome = { status: 200; result: 'booked' | 'duplicate' } | { status: 400; reason: string };

export function createAccountingReceiver(deps: { secret: string; store: OrderStore; now?: () => Date }) {
  const verifier = new Webhook(deps.secret);
  return {
    async receive(rawBody: Buffer, headers: Record<string, string>): Promise<AccountingOutcome> {
      const lowered = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
      let payload: unknown;
      try {
        payload = verifier.verify(rawBody, lowered);
      } catch (err) {
        if (err instanceof WebhookVerificationError || err instanceof SyntaxError) return { status: 400, reason: err.message };
        throw err;
      }
      // Anything but a refund means the endpoint's enabledEvents changed: refused, so it shows as failing.
      const parsed = refundEventSchema.safeParse(payload);
      if (!parsed.success || parsed.data.id !== lowered['webhook-id']) return { status: 400, reason: 'not an order_refunded event' };
      const event = parsed.data;
      if (deps.store.journal().some((entry) => entry.eventId === event.id)) return { status: 200, result: 'duplicate' };
      await deps.store.update((file) => {
        file.journal.push({
          eventId: event.id,
          cartId: event.data.cartId,
          refundId: event.data.refund.id,
          amount: event.data.refund.amount,
          currency: event.data.currency,
          bookedAt: (deps.now ?? (() => new Date()))().toISOString(),
        });
      });
      return { status: 200, result: 'booked' };
    },
  };
}
