import { cartFunnel, cartTotals, savedCardPayments } from '../checkout/cart-insights.js';
import { FUNNEL_STEPS, type CartOwner, type FunnelStep } from '../checkout/cart-ledger.js';
import type { Db } from '../db/client.js';
import { refundTotals } from '../orders/refund-ledger.js';
import { endpointDeliveryHealth, type EndpointHealth } from '../webhooks/event-history.js';

/**
 * The dashboard's insights, each figure computed from what PostgreSQL stores (the ledger, the
 * refunds, the webhook attempts), never by asking a session's workflow: one merchant's, or every
 * merchant's for operators.
 */

/** The periods the dashboard offers, in days back from now. */
export const INSIGHT_PERIODS = [1, 7, 30] as const;
export type InsightPeriod = (typeof INSIGHT_PERIODS)[number];

export interface InsightQuery {
  /** One merchant in one environment; none: every merchant (operators). */
  merchant?: CartOwner;
  days: InsightPeriod;
  now?: Date;
}

const DAY_MS = 24 * 3600 * 1000;

function scopeOf(query: InsightQuery) {
  const since = new Date((query.now ?? new Date()).getTime() - query.days * DAY_MS);
  return { since, ...(query.merchant ? { merchant: query.merchant } : {}) };
}

export interface InsightSummary {
  since: string;
  sessions: number;
  paid: number;
  /** paid / sessions, 0 to 1; null with no session. */
  conversion: number | null;
  /** What paid sessions of the period charged, per currency (minor units), refunds not deducted; `retried`: the part paid on a retry of a failed session. */
  revenue: Array<{ currency: string; amount: number; retried: number }>;
  /** Retries of a failed session created in the period (POST /v2/merchant/carts/{cartId}/retry), and how many of them were paid. */
  retries: { sessions: number; paid: number };
  /** Refunds that succeeded in the period, per currency (minor units). */
  refunds: Array<{ currency: string; refunds: number; amount: number }>;
  /** Of the sessions, those payment links minted (docs/payment-links.md), how many of them were paid, and what those charged per currency (minor units). */
  links: { sessions: number; paid: number; revenue: Array<{ currency: string; amount: number }> };
  /** Of the sessions, those a recovery link minted from an abandoned one (docs/abandoned-cart-recovery.md), as `links`. */
  recoveries: { sessions: number; paid: number; revenue: Array<{ currency: string; amount: number }> };
}

export async function insightSummary(db: Db, query: InsightQuery): Promise<InsightSummary> {
  const scope = scopeOf(query);
  const [totals, refunds] = await Promise.all([
    cartTotals(db, scope),
    refundTotals(db, { since: scope.since, ...(query.merchant ? { platformUuid: query.merchant.platformUuid } : {}) }),
  ]);
  const sessions = totals.reduce((sum, t) => sum + t.sessions, 0);
  const paid = totals.reduce((sum, t) => sum + t.paid, 0);
  return {
    since: scope.since.toISOString(),
    sessions,
    paid,
    conversion: sessions === 0 ? null : paid / sessions,
    revenue: totals.filter((t) => t.paid > 0).map((t) => ({ currency: t.currency, amount: t.paidAmount, retried: t.retriedPaidAmount })),
    retries: { sessions: totals.reduce((sum, t) => sum + t.retried, 0), paid: totals.reduce((sum, t) => sum + t.retriedPaid, 0) },
    refunds,
    links: {
      sessions: totals.reduce((sum, t) => sum + t.linkSessions, 0),
      paid: totals.reduce((sum, t) => sum + t.linkPaid, 0),
      revenue: totals.filter((t) => t.linkPaid > 0).map((t) => ({ currency: t.currency, amount: t.linkPaidAmount })),
    },
    recoveries: {
      sessions: totals.reduce((sum, t) => sum + t.recovered, 0),
      paid: totals.reduce((sum, t) => sum + t.recoveredPaid, 0),
      revenue: totals.filter((t) => t.recoveredPaid > 0).map((t) => ({ currency: t.currency, amount: t.recoveredPaidAmount })),
    },
  };
}

/** How an ended session ended, as the funnel tells where it stopped; `open` is still under way. */
export const FUNNEL_ENDINGS = ['abandoned', 'cancelled', 'failed', 'open'] as const;
export type FunnelEnding = (typeof FUNNEL_ENDINGS)[number];

export interface FunnelRow {
  step: FunnelStep;
  /** Sessions that reached this step (or a later one). */
  reached: number;
  /** Of those that stopped here (this step was their furthest), how each ended; paid sessions stop at `paid` and are not counted here. */
  stoppedHere: Record<FunnelEnding, number>;
}

function endingOf(status: string): FunnelEnding | undefined {
  if (status === 'abandoned' || status === 'cancelled' || status === 'failed') return status;
  if (status === 'pending' || status === 'processing') return 'open';
  return undefined;
}

/** The paid sessions of the period, and how many of them paid with a saved card; `share` 0 to 1, null with no payment. */
export interface SavedCardShare {
  paid: number;
  withSavedCard: number;
  share: number | null;
}

export async function insightFunnel(db: Db, query: InsightQuery): Promise<{ since: string; steps: FunnelRow[]; savedCards: SavedCardShare }> {
  const scope = scopeOf(query);
  const [counted, saved] = await Promise.all([cartFunnel(db, scope), savedCardPayments(db, scope)]);
  const steps = FUNNEL_STEPS.map((step, index): FunnelRow => {
    const stoppedHere: Record<FunnelEnding, number> = { abandoned: 0, cancelled: 0, failed: 0, open: 0 };
    let reached = 0;
    for (const row of counted) {
      if (FUNNEL_STEPS.indexOf(row.furthest) >= index) reached += row.sessions;
      const ending = endingOf(row.status);
      if (row.furthest === step && ending) stoppedHere[ending] += row.sessions;
    }
    return { step, reached, stoppedHere };
  });
  const savedCards = { ...saved, share: saved.paid === 0 ? null : saved.withSavedCard / saved.paid };
  return { since: scope.since.toISOString(), steps, savedCards };
}

export async function insightWebhookHealth(db: Db, query: InsightQuery): Promise<{ since: string; endpoints: EndpointHealth[] }> {
  const scope = scopeOf(query);
  const endpoints = await endpointDeliveryHealth(db, { since: scope.since, ...(query.merchant ? { platformUuid: query.merchant.platformUuid } : {}) });
  return { since: scope.since.toISOString(), endpoints };
}
