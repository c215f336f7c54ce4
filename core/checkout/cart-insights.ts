import type { Db } from '../db/client.js';
import { FUNNEL_STEPS, type CartOwner, type FunnelStep } from './cart-ledger.js';
import type { CartStatus } from './session.js';

/** What the dashboard's insights read of the `carts` ledger (./cart-ledger.ts): sessions and payments per currency, and the funnel. */

/** Which carts an insight counts: one merchant's in one environment, or (operators) every merchant's. */
export interface InsightScope {
  merchant?: CartOwner;
  /** Carts created at or after this instant. */
  since: Date;
}

const PAID_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;

const scopeCondition = (db: Db, scope: InsightScope) =>
  db`created_at >= ${scope.since}
    ${scope.merchant ? db`and platform_uuid = ${scope.merchant.platformUuid} and environment = ${scope.merchant.environment}` : db``}`;

export interface CartTotals {
  currency: string;
  sessions: number;
  paid: number;
  paidAmount: number;
  /** Of those, the retries of a failed session (retry_of set, ./cart-retry.ts): what a second chance brought back. */
  retried: number;
  retriedPaid: number;
  retriedPaidAmount: number;
  /** Of the sessions, those a payment link minted (carts.payment_link_id, core/links/payment-links.ts), those of them paid, and what they charged. */
  linkSessions: number;
  linkPaid: number;
  linkPaidAmount: number;
  /** Of the sessions, those a recovery link minted (carts.recovered_from, ./cart-recovery.ts), those of them paid, and what they charged. */
  recovered: number;
  recoveredPaid: number;
  recoveredPaidAmount: number;
}

/** Sessions created in the scope, per currency: how many, how many were paid (refunded ones included), and what those paid; the same for retries, link sessions and recovered sessions alone. */
export async function cartTotals(db: Db, scope: InsightScope): Promise<CartTotals[]> {
  const rows = await db<
    {
      currency: string;
      sessions: string;
      paid: string;
      paid_amount: string;
      retried: string;
      retried_paid: string;
      retried_paid_amount: string;
      link_sessions: string;
      link_paid: string;
      link_paid_amount: string;
      recovered: string;
      recovered_paid: string;
      recovered_paid_amount: string;
    }[]
  >`
    select currency, count(*) as sessions,
      count(*) filter (where status in ${db(PAID_STATUSES)}) as paid,
      coalesce(sum(amount) filter (where status in ${db(PAID_STATUSES)}), 0) as paid_amount,
      count(*) filter (where retry_of is not null) as retried,
      count(*) filter (where retry_of is not null and status in ${db(PAID_STATUSES)}) as retried_paid,
      coalesce(sum(amount) filter (where retry_of is not null and status in ${db(PAID_STATUSES)}), 0) as retried_paid_amount,
      count(*) filter (where payment_link_id is not null) as link_sessions,
      count(*) filter (where payment_link_id is not null and status in ${db(PAID_STATUSES)}) as link_paid,
      coalesce(sum(amount) filter (where payment_link_id is not null and status in ${db(PAID_STATUSES)}), 0) as link_paid_amount,
      count(*) filter (where recovered_from is not null) as recovered,
      count(*) filter (where recovered_from is not null and status in ${db(PAID_STATUSES)}) as recovered_paid,
      coalesce(sum(amount) filter (where recovered_from is not null and status in ${db(PAID_STATUSES)}), 0) as recovered_paid_amount
    from carts where ${scopeCondition(db, scope)}
    group by currency order by currency`;
  return rows.map((r) => ({
    currency: r.currency,
    sessions: Number(r.sessions),
    paid: Number(r.paid),
    paidAmount: Number(r.paid_amount),
    retried: Number(r.retried),
    retriedPaid: Number(r.retried_paid),
    retriedPaidAmount: Number(r.retried_paid_amount),
    linkSessions: Number(r.link_sessions),
    linkPaid: Number(r.link_paid),
    linkPaidAmount: Number(r.link_paid_amount),
    recovered: Number(r.recovered),
    recoveredPaid: Number(r.recovered_paid),
    recoveredPaidAmount: Number(r.recovered_paid_amount),
  }));
}

/**
 * How many sessions of the scope reached each step as their furthest, by status. A later step
 * implies the earlier ones, and what a session's status and card show counts too: a cart created
 * before migration 019, or whose page write was lost, still counts where its outcome proves it was.
 */
export async function cartFunnel(db: Db, scope: InsightScope): Promise<Array<{ furthest: FunnelStep; status: CartStatus; sessions: number }>> {
  const rows = await db<{ furthest: number; status: CartStatus; sessions: string }[]>`
    select furthest, status, count(*) as sessions from (
      select status, case
        when status in ${db(PAID_STATUSES)} then 5
        when pay_attempted_at is not null or status = 'processing' or payment_brand is not null then 4
        when code_verified_at is not null then 3
        when code_sent_at is not null or failure_code = 'otp_locked' then 2
        when page_opened_at is not null then 1
        else 0 end as furthest
      from carts where ${scopeCondition(db, scope)}
    ) reached
    group by furthest, status`;
  return rows.map((r) => ({ furthest: FUNNEL_STEPS[r.furthest]!, status: r.status, sessions: Number(r.sessions) }));
}

/** Of the scope's paid sessions (refunded ones included), how many were paid with a saved card (carts.paid_with_saved_card, docs/saved-cards.md). */
export async function savedCardPayments(db: Db, scope: InsightScope): Promise<{ paid: number; withSavedCard: number }> {
  const [row] = await db<{ paid: string; with_saved_card: string }[]>`
    select count(*) as paid, count(*) filter (where paid_with_saved_card) as with_saved_card
    from carts where ${scopeCondition(db, scope)} and status in ${db(PAID_STATUSES)}`;
  return { paid: Number(row?.paid ?? 0), withSavedCard: Number(row?.with_saved_card ?? 0) };
}
