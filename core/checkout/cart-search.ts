import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import type { CartOwner } from './cart-ledger.js';
import type { CartStatus } from './session.js';

/** The operators' search of the `carts` ledger (./cart-ledger.ts): any merchant's carts and where each session is. */

/**
 * Where a session is, as the ledger knows it. The ledger is written when the customer first acts
 * (customer_started_at) and at each status, not between the code and the card: those two steps of
 * the page are one here, and the Temporal UI's current details tell them apart.
 */
export const LEDGER_STEPS = ['not_started', 'in_checkout', 'processing', 'done'] as const;
export type LedgerStep = (typeof LEDGER_STEPS)[number];

/** The operators' search: any merchant's carts, every filter optional, newest first (ties by cartId). */
export interface CartSearch {
  cartId?: string;
  merchant?: CartOwner;
  status?: CartStatus;
  step?: LedgerStep;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  after?: { createdAtMicros: string; cartId: string };
  limit: number;
}

export interface FoundCart {
  cartId: string;
  platformUuid: string;
  merchantName: string;
  environment: Environment;
  status: CartStatus;
  step: LedgerStep;
  amount: number;
  currency: string;
  createdAt: Date;
  createdAtMicros: string;
}

interface FoundCartRow {
  cart_id: string;
  platform_uuid: string;
  merchant_name: string;
  environment: Environment;
  status: CartStatus;
  customer_started_at: Date | null;
  amount: string;
  currency: string;
  created_at: Date;
  created_at_micros: string;
}

const TERMINAL = ['authorized', 'paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded'] as const;

function ledgerStep(status: CartStatus, customerStartedAt: Date | null): LedgerStep {
  if (status === 'processing') return 'processing';
  if (status !== 'pending') return 'done';
  return customerStartedAt ? 'in_checkout' : 'not_started';
}

/**
 * Each filter narrows one of the indexes: cart_id (primary key), the merchant
 * (carts_merchant_env_created), status (carts_status_created, which a step implies), or none
 * (carts_created); so a page reads about as many rows as it shows, whatever the table's size.
 */
export async function searchCarts(db: Db, search: CartSearch): Promise<FoundCart[]> {
  const { after, step } = search;
  const stepCondition =
    step === 'not_started'
      ? db`and status = 'pending' and customer_started_at is null`
      : step === 'in_checkout'
        ? db`and status = 'pending' and customer_started_at is not null`
        : step === 'processing'
          ? db`and status = 'processing'`
          : step === 'done'
            ? db`and status in ${db(TERMINAL)}`
            : db``;
  const rows = await db<FoundCartRow[]>`
    select cart_id, platform_uuid, merchant_name, environment, status, customer_started_at, amount, currency, created_at,
      (extract(epoch from created_at) * 1000000)::bigint::text as created_at_micros
    from carts
    where true
      ${search.cartId ? db`and cart_id = ${search.cartId}` : db``}
      ${search.merchant ? db`and platform_uuid = ${search.merchant.platformUuid} and environment = ${search.merchant.environment}` : db``}
      ${search.status ? db`and status = ${search.status}` : db``}
      ${stepCondition}
      ${search.createdFrom ? db`and created_at >= ${search.createdFrom}` : db``}
      ${search.createdTo ? db`and created_at < ${search.createdTo}` : db``}
      ${after ? db`and (created_at, cart_id) < (timestamptz 'epoch' + ${after.createdAtMicros}::bigint * interval '1 microsecond', ${after.cartId})` : db``}
    order by created_at desc, cart_id desc
    limit ${search.limit}`;
  return rows.map((r) => ({
    cartId: r.cart_id,
    platformUuid: r.platform_uuid,
    merchantName: r.merchant_name,
    environment: r.environment,
    status: r.status,
    step: ledgerStep(r.status, r.customer_started_at),
    amount: Number(r.amount),
    currency: r.currency,
    createdAt: r.created_at,
    createdAtMicros: r.created_at_micros,
  }));
}
