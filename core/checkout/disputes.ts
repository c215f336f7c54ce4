import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import type { DisputeEvidence } from './dispute-evidence.js';
import type { DisputeAnswer, DisputeFacts, DisputeStatus } from './dispute-model.js';

/**
 * The `disputes` table's one writer: each dispute of an order as its workflow (workflows/dispute/)
 * records it, and the merchant's answer, the evidence sealed with the keyring (it is customer data).
 */

export interface DisputeRow {
  id: string;
  cartId: string;
  platformUuid: string;
  environment: Environment;
  amount: number;
  currency: string;
  reason: string;
  status: DisputeStatus;
  evidenceDueBy: Date;
  answer: DisputeAnswer | null;
  answeredAt: Date | null;
  openedAt: Date;
}

interface DisputeDbRow {
  id: string;
  cart_id: string;
  platform_uuid: string;
  environment: Environment;
  amount: string;
  currency: string;
  reason: string;
  status: DisputeStatus;
  evidence_due_by: Date;
  answer: DisputeAnswer | null;
  answered_at: Date | null;
  opened_at: Date;
}

const COLUMNS = (sql: Sql) => sql`id, cart_id, platform_uuid, environment, amount, currency, reason, status, evidence_due_by, answer, answered_at, opened_at`;

const toRow = (r: DisputeDbRow): DisputeRow => ({
  id: r.id,
  cartId: r.cart_id,
  platformUuid: r.platform_uuid,
  environment: r.environment,
  amount: Number(r.amount),
  currency: r.currency,
  reason: r.reason,
  status: r.status,
  evidenceDueBy: r.evidence_due_by,
  answer: r.answer,
  answeredAt: r.answered_at,
  openedAt: r.opened_at,
});

/**
 * Records the dispute as the processor states it now: inserted on its first word, updated after.
 * A closed dispute stays closed: a late, reordered event cannot reopen it.
 */
export async function recordDispute(sql: Sql, input: { disputeId: string; cartId: string; facts: DisputeFacts }): Promise<DisputeRow> {
  const { disputeId, cartId, facts } = input;
  const [row] = await sql<DisputeDbRow[]>`
    insert into disputes (id, cart_id, platform_uuid, environment, amount, currency, reason, status, evidence_due_by)
    select ${disputeId}, cart_id, platform_uuid, environment, ${facts.amount}, currency, ${facts.reason}, ${facts.status}, ${facts.evidenceDueBy}
    from carts where cart_id = ${cartId}
    on conflict (id) do update set
      amount = excluded.amount, reason = excluded.reason, evidence_due_by = excluded.evidence_due_by,
      status = case when disputes.status in ('won', 'lost') then disputes.status else excluded.status end,
      updated_at = now()
    returning ${COLUMNS(sql)}`;
  if (!row) throw new Error(`cart ${cartId} is not in the ledger`);
  return toRow(row);
}

export async function findDispute(sql: Sql, disputeId: string): Promise<DisputeRow | undefined> {
  const [row] = await sql<DisputeDbRow[]>`select ${COLUMNS(sql)} from disputes where id = ${disputeId}`;
  return row && toRow(row);
}

/** The order's latest dispute, the one its `dispute` field shows. */
export async function latestDisputeOfCart(sql: Sql, cartId: string): Promise<DisputeRow | undefined> {
  const [row] = await sql<DisputeDbRow[]>`select ${COLUMNS(sql)} from disputes where cart_id = ${cartId} order by opened_at desc limit 1`;
  return row && toRow(row);
}

/**
 * Keeps the merchant's answer, once: the first answer of a dispute still needing one, before its
 * evidence is due, wins; the evidence sealed. Returns false when the dispute no longer takes an answer
 * (the processor would refuse one past its deadline).
 */
export async function recordDisputeAnswer(
  sql: Sql,
  keyring: Keyring,
  input: { disputeId: string; answer: 'evidence'; evidence: DisputeEvidence } | { disputeId: string; answer: 'accept' },
): Promise<boolean> {
  const sealed = input.answer === 'evidence' ? keyring.seal(JSON.stringify(input.evidence)) : null;
  const rows = await sql`
    update disputes set answer = ${input.answer}, evidence_sealed = ${sealed}, answered_at = now(), updated_at = now()
    where id = ${input.disputeId} and status = 'needs_response' and answer is null and evidence_due_by > now()
    returning id`;
  return rows.length === 1;
}

/** The evidence the merchant gave, opened for the processor; undefined when they gave none. */
export async function disputeEvidenceOf(sql: Sql, keyring: Keyring, disputeId: string): Promise<DisputeEvidence | undefined> {
  const [row] = await sql<{ evidence_sealed: Buffer | null }[]>`select evidence_sealed from disputes where id = ${disputeId}`;
  return row?.evidence_sealed ? (JSON.parse(keyring.open(row.evidence_sealed)) as DisputeEvidence) : undefined;
}

export interface DisputeFilter {
  status?: DisputeStatus;
  /** Inclusive: disputes whose evidence is due by then. */
  dueBefore?: Date;
  limit: number;
}

/** For operators: disputes by status, soonest due first. */
export async function listDisputes(db: Db, filter: DisputeFilter): Promise<DisputeRow[]> {
  const rows = await db<DisputeDbRow[]>`
    select ${COLUMNS(db)} from disputes
    where true
      ${filter.status ? db`and status = ${filter.status}` : db``}
      ${filter.dueBefore ? db`and evidence_due_by <= ${filter.dueBefore}` : db``}
    order by evidence_due_by, id
    limit ${filter.limit}`;
  return rows.map(toRow);
}
