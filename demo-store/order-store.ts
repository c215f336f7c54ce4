import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * The store's own orders, kept in one JSON file. A real shop would use its database; what matters
 * here is the shape: the store's order id is the key, the cartId is the link to the payment, and
 * every webhook received is kept for audit and reconciliation.
 */

const webhookRecordSchema = z.object({
  eventId: z.string(),
  event: z.string(),
  sequence: z.number().int().nullable(),
  /** false: the signature did not verify; the record is kept to show it, and was never acted on. */
  verified: z.boolean(),
  status: z.string().nullable(),
  receivedAt: z.string(),
  /** How many times this event arrived: retries and replays repeat it, and are acknowledged only. */
  deliveries: z.number().int().positive(),
  note: z.string().nullable(),
  /** For order_refunded: the refund it confirms. */
  refundId: z.string().nullable(),
  /** The cart the event is about: an order paid after a retry has events of more than one (null: kept before retries). */
  cartId: z.string().nullable().default(null),
});

const refundRequestSchema = z.object({
  idempotencyKey: z.string(),
  refundId: z.string().nullable(),
  amount: z.number().int(),
  reason: z.string().nullable(),
  /** What the API answered (`pending`, `succeeded`, `failed`). */
  status: z.string(),
  requestedAt: z.string(),
  /** When the order_refunded webhook confirmed it: what the store trusts, as for payments. */
  confirmedAt: z.string().nullable(),
});

const orderSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  currency: z.string(),
  items: z.array(z.object({ productId: z.string(), title: z.string(), price: z.number().int(), quantity: z.number().int().positive() })),
  total: z.number().int(),
  cartId: z.string().nullable(),
  /** The order's earlier carts, oldest first: each one failed and was retried as the next (Try another card). */
  earlierCartIds: z.array(z.string()).default([]),
  /** The message of the last create-cart refusal, while the order has no cart. */
  checkoutError: z.string().nullable(),
  /** `awaiting_payment` until the first webhook of its cart, then the `data.status` of that cart's highest sequence seen. */
  status: z.string(),
  appliedSequence: z.number().int(),
  /** Set once, by a verified order_created: never by the customer's redirect. */
  fulfilledAt: z.string().nullable(),
  refundedTotal: z.number().int(),
  refunds: z.array(refundRequestSchema),
  webhooks: z.array(webhookRecordSchema),
});

const fileSchema = z.object({
  orders: z.array(orderSchema),
  /** Verified events for carts the store has no order for (e.g. a cart created with the printed curl): the latest KEPT_UNMATCHED. */
  unmatched: z.array(webhookRecordSchema.extend({ cartId: z.string() })),
  /** The accounting endpoint's bookings (./accounting.ts): one per refund event. */
  journal: z
    .array(z.object({ eventId: z.string(), cartId: z.string(), refundId: z.string(), amount: z.number().int(), currency: z.string(), bookedAt: z.string() }))
    .default([]),
});

export type StoreOrder = z.infer<typeof orderSchema>;

/**
 * The order's payment moves to the retry of its failed cart: later events are of the new cart, whose
 * sequences start again at 1. Only from the cart it retries, so a repeated switch changes nothing.
 */
export function switchToRetry(order: StoreOrder, failedCartId: string, retryCartId: string): void {
  if (order.cartId !== failedCartId) return;
  order.earlierCartIds.push(failedCartId);
  order.cartId = retryCartId;
  order.status = 'awaiting_payment';
  order.appliedSequence = 0;
  order.checkoutError = null;
}
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;
export type RefundRequest = z.infer<typeof refundRequestSchema>;
type StoreFile = z.infer<typeof fileSchema>;

/** How many records of one kind are kept where senders we cannot trust could add them. */
export const KEPT_REJECTIONS = 20;
/**
 * How many unmatched events are kept, the latest: anyone can create carts for the store and have their
 * genuine, signed events sent here, so the list (and the file, rewritten on each change) stays bounded.
 */
export const KEPT_UNMATCHED = 100;

/**
 * How many orders the file holds at most, unless told otherwise: anyone can post the shop's form (a
 * script sends the store's own Origin), and each order is kept in the file rewritten on every change.
 * A full store refuses new orders rather than dropping old ones: an old order may be paid, or still
 * payable (its checkout session open), and dropping it would lose what the customer paid for.
 */
export const MAX_ORDERS = 1_000;

/** Thrown by `create` when the store holds its maximum of orders: the owner archives some (moves the file away) to take more. */
export class OrdersFullError extends Error {
  constructor(readonly maxOrders: number) {
    super(`The store holds ${maxOrders} orders, its maximum: it takes no new order until some are archived.`);
  }
}

export interface OrderStore {
  list(): StoreOrder[];
  get(id: string): StoreOrder | undefined;
  /** The order this cart is, or was, the payment of (its current cart or an earlier one). */
  findByCartId(cartId: string): StoreOrder | undefined;
  unmatched(): StoreFile['unmatched'];
  journal(): StoreFile['journal'];
  /** Adds an order; throws OrdersFullError when the store already holds its maximum. */
  create(order: Pick<StoreOrder, 'currency' | 'items' | 'total'>): Promise<StoreOrder>;
  /** Changes the orders (or the unmatched list) in memory and writes the file before resolving. */
  update(change: (file: StoreFile) => void): Promise<void>;
}

/**
 * Loads `file` (or starts empty) and keeps it current. Each write goes to a temporary file that is
 * then renamed over the old one, so a crash mid-write leaves the previous version, never half a file;
 * writes are queued, so two requests never interleave theirs.
 */
export function openOrderStore(file: string, maxOrders: number = MAX_ORDERS): OrderStore {
  mkdirSync(path.dirname(file), { recursive: true });
  let data: StoreFile;
  try {
    data = fileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file} is not a Demo Store order file: ${String(err)}`);
    data = { orders: [], unmatched: [], journal: [] };
  }
  let writing: Promise<void> = Promise.resolve();
  const persist = () => {
    const snapshot = JSON.stringify(data, null, 2) + '\n';
    // A failed write must not block the ones after it: each write holds the whole state.
    writing = writing
      .catch(() => undefined)
      .then(async () => {
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, snapshot, { mode: 0o600, flush: true });
        await rename(temporary, file);
      });
    return writing;
  };

  return {
    list: () => [...data.orders].sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    get: (id) => data.orders.find((o) => o.id === id),
    findByCartId: (cartId) => data.orders.find((o) => o.cartId === cartId || o.earlierCartIds.includes(cartId)),
    unmatched: () => data.unmatched,
    journal: () => data.journal,
    async create(order) {
      if (data.orders.length >= maxOrders) throw new OrdersFullError(maxOrders);
      const created: StoreOrder = {
        ...order,
        id: `ord_${randomUUID()}`,
        createdAt: new Date().toISOString(),
        cartId: null,
        earlierCartIds: [],
        checkoutError: null,
        status: 'awaiting_payment',
        appliedSequence: 0,
        fulfilledAt: null,
        refundedTotal: 0,
        refunds: [],
        webhooks: [],
      };
      data.orders.push(created);
      await persist();
      return created;
    },
    async update(change) {
      change(data);
      await persist();
    },
  };
}
