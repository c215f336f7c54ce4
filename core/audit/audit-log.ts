import { z } from 'zod';
import type { Db, Sql } from '../db/client.js';

/**
 * The one owner of the `audit_log` table (migration 043): every decision a key, a dashboard user or an
 * operator makes, appended and never changed (the table's trigger refuses UPDATE, DELETE and TRUNCATE).
 * Callers say who, from where, what and on what; a settings change adds its before and after, which
 * must never hold a secret (`recordAudit` refuses a value whose key names one).
 */

/** Every action the log knows, closed: a new decision is added here, where the page's filter finds it too. */
export const AUDIT_ACTIONS = [
  'order.refund',
  'order.capture',
  'order.void',
  'cart.expire',
  'cart.retry',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.disable',
  'webhook_endpoint.enable',
  'webhook_endpoint.delete',
  'webhook_endpoint.recover',
  'webhook_endpoint.test',
  'webhook_secret.rotate',
  'event.replay',
  'payment_link.create',
  'payment_link.close',
  'settings.update',
  'domains.verify',
  'api_key.create',
  'api_key.revoke',
  'operator_token.create',
  'operator_token.revoke',
  'merchant.register',
  'merchant.activate',
  'merchant.deactivate',
  'saved_cards.erase',
  'person.invite',
  'person.invitation_revoke',
  'person.join',
  'person.role_change',
  'person.refund_limit_change',
  'person.remove',
  'person.sign_in',
  'person.sign_in_refused',
  'person.sign_out',
  'person.passkey_add',
  'person.passkey_remove',
  'integrity_alert.acknowledge',
  'dispute.evidence',
  'dispute.accept',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const auditActionSchema = z.enum(AUDIT_ACTIONS);

/** Who decided: a merchant's API key (or a dashboard session made from one), a dashboard user, or an operator. */
export type AuditActor = { type: 'api_key'; id: string; name: string } | { type: 'user'; id: string; email: string } | { type: 'operator'; id: string };
export const AUDIT_ACTOR_TYPES = ['api_key', 'user', 'operator'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface AuditEntryInput {
  actor: AuditActor;
  /** The client's address as core/client-address.ts reads it; null when there is none (the CLI). */
  ip: string | null;
  /** The merchant the decision concerns; null for an operator's decision about no one merchant. */
  merchantId: string | null;
  action: AuditAction;
  /** What it was taken on: `order:<cartId>`, `webhook_endpoint:<id>`, `api_key:<id>`, `person:<id>`… */
  target: string | null;
  /** A settings change's values before and after; never a secret. */
  before?: Record<string, Json> | null;
  after?: Record<string, Json> | null;
}

/** What a door says of a decision; who and from where come from its request. */
export type AuditDecision = Pick<AuditEntryInput, 'action' | 'target' | 'before' | 'after'>;

export interface AuditEntry {
  id: string;
  at: Date;
  merchantId: string | null;
  actor: AuditActor;
  ip: string | null;
  action: AuditAction;
  target: string | null;
  before: Record<string, Json> | null;
  after: Record<string, Json> | null;
}

/** Keys a settings snapshot must never carry (a value named as a secret); `previousSecretsExpireAt`, when old secrets stop signing, is not one. */
const SECRET_KEY = /^(pan|cvv|cvc|otp|code)$|(secret|password|token|api_?key|credential|private_?key)$/i;

function assertNoSecret(value: Json | undefined, path: string): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_KEY.test(key)) throw new Error(`An audit entry's ${path}.${key} names a secret; record that it changed, not its value`);
    assertNoSecret(inner, `${path}.${key}`);
  }
}

const actorLabel = (actor: AuditActor) => (actor.type === 'api_key' ? actor.name : actor.type === 'user' ? actor.email : null);

/** Appends one entry and answers its id (what `Audit-Entry-Id` carries). Takes a transaction, so the entry commits with the change it records. */
export async function recordAudit(db: Sql, entry: AuditEntryInput): Promise<string> {
  auditActionSchema.parse(entry.action);
  assertNoSecret(entry.before ?? null, 'before');
  assertNoSecret(entry.after ?? null, 'after');
  const [row] = await db<{ id: string }[]>`
    insert into audit_log (platform_uuid, actor_type, actor_id, actor_label, ip, action, target, before, after)
    values (${entry.merchantId}, ${entry.actor.type}, ${entry.actor.id}, ${actorLabel(entry.actor)}, ${entry.ip?.slice(0, 64) ?? null},
      ${entry.action}, ${entry.target?.slice(0, 400) ?? null},
      ${entry.before ? db.json(entry.before) : null}, ${entry.after ? db.json(entry.after) : null})
    returning id`;
  return row!.id;
}

export interface AuditFilters {
  /** One merchant's entries; undefined: every merchant's and the operator-wide ones (operators only). */
  merchantId?: string;
  actorType?: AuditActorType;
  /** An actor's id, or a part of its label (a key's name, a user's email), case-insensitive. */
  actor?: string;
  action?: AuditAction;
  /** Inclusive lower and exclusive upper bound on `at`. */
  from?: Date;
  to?: Date;
  /** Entries strictly older than this one (the page's next page). */
  before?: { at: Date; id: string };
  limit?: number;
}

export const AUDIT_PAGE_MAX = 1000;

interface AuditRow {
  id: string;
  at: Date;
  platform_uuid: string | null;
  actor_type: AuditActorType;
  actor_id: string;
  actor_label: string | null;
  ip: string | null;
  action: AuditAction;
  target: string | null;
  before: Record<string, Json> | null;
  after: Record<string, Json> | null;
}

function actorOf(row: AuditRow): AuditActor {
  switch (row.actor_type) {
    case 'api_key':
      return { type: 'api_key', id: row.actor_id, name: row.actor_label ?? '' };
    case 'user':
      return { type: 'user', id: row.actor_id, email: row.actor_label ?? '' };
    case 'operator':
      return { type: 'operator', id: row.actor_id };
  }
}

/** Entries newest first, filtered; at most `limit` (100 by default, AUDIT_PAGE_MAX at most). */
export async function listAudit(db: Db, filters: AuditFilters = {}): Promise<AuditEntry[]> {
  const limit = Math.min(Math.max(filters.limit ?? 100, 1), AUDIT_PAGE_MAX);
  const like = filters.actor ? `%${filters.actor.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : undefined;
  const rows = await db<AuditRow[]>`
    select id, at, platform_uuid, actor_type, actor_id, actor_label, ip, action, target, before, after
    from audit_log
    where true
      ${filters.merchantId ? db`and platform_uuid = ${filters.merchantId}` : db``}
      ${filters.actorType ? db`and actor_type = ${filters.actorType}` : db``}
      ${filters.actor ? db`and (actor_id = ${filters.actor} or actor_label ilike ${like!})` : db``}
      ${filters.action ? db`and action = ${filters.action}` : db``}
      ${filters.from ? db`and at >= ${filters.from}` : db``}
      ${filters.to ? db`and at < ${filters.to}` : db``}
      ${filters.before ? db`and (at, id) < (${filters.before.at}, ${filters.before.id}::uuid)` : db``}
    order by at desc, id desc
    limit ${limit}`;
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    merchantId: row.platform_uuid,
    actor: actorOf(row),
    ip: row.ip,
    action: row.action,
    target: row.target,
    before: row.before,
    after: row.after,
  }));
}

/** The header every API answer that changed something carries: the id of the audit entry that records it. */
export const AUDIT_ENTRY_HEADER = 'Audit-Entry-Id';

/**
 * The operator known today: whoever holds OPERATOR_TOKEN (the operator API, the CLI's bearer, the
 * dashboard's operator session made with it), one actor until operators sign in as themselves.
 */
export const TOKEN_OPERATOR: AuditActor = { type: 'operator', id: 'operator-token' };
