import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db, Sql } from '../db/client.js';
import { isOperatorRole, type OperatorRole } from './roles.js';

/**
 * The one owner of `operator_personal_tokens` (migration 047): an operator's own bearer tokens for the
 * operator API and the codec, in place of the shared OPERATOR_TOKEN. Only a token's SHA-256 is kept
 * (32 random bytes need no slow hash); the token is answered once, when made.
 */

/** Every personal token starts so: told apart from OPERATOR_TOKEN at a glance, and by secret scanners. */
const TOKEN_PREFIX = 'opt_';
/** An operator may hold this many live tokens, so a leaked session cannot mint them without end. */
export const MAX_TOKENS_PER_OPERATOR = 10;

export const operatorTokenNameSchema = z.string().trim().min(1, 'must not be empty').max(60, 'must be at most 60 characters');

export interface OperatorTokenSummary {
  id: string;
  name: string;
  /** The token's first characters, to tell it apart; never enough to use. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Who a personal token acts as: its operator, with their role now. */
export interface TokenOperator {
  tokenId: string;
  userId: string;
  email: string;
  role: OperatorRole;
}

export class OperatorTokenLimitError extends Error {
  constructor() {
    super(`You hold ${MAX_TOKENS_PER_OPERATOR} tokens already: revoke one first.`);
  }
}

const digest = (token: string) => createHash('sha256').update(token).digest();

/** Makes a named token for an operator; answers it this once. */
export async function createOperatorToken(db: Db, userId: string, name: string): Promise<{ token: string; summary: OperatorTokenSummary }> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return db.begin(async (tx) => {
    // One operator's creations in a row, so two at once cannot both pass the count.
    await tx`select pg_advisory_xact_lock(hashtext(${`operator-tokens:${userId}`}))`;
    const [counted] = await tx<{ live: number }[]>`
      select count(*)::int as live from operator_personal_tokens where user_id = ${userId} and revoked_at is null`;
    if (counted!.live >= MAX_TOKENS_PER_OPERATOR) throw new OperatorTokenLimitError();
    const [row] = await tx<{ id: string; created_at: Date }[]>`
      insert into operator_personal_tokens (user_id, name, token_hash, prefix)
      values (${userId}, ${name}, ${digest(token)}, ${token.slice(0, TOKEN_PREFIX.length + 6)})
      returning id, created_at`;
    return { token, summary: { id: row!.id, name, prefix: token.slice(0, TOKEN_PREFIX.length + 6), createdAt: row!.created_at, lastUsedAt: null } };
  });
}

/** An operator's live tokens, newest first. */
export async function listOperatorTokens(db: Db, userId: string): Promise<OperatorTokenSummary[]> {
  const rows = await db<{ id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null }[]>`
    select id, name, prefix, created_at, last_used_at from operator_personal_tokens
     where user_id = ${userId} and revoked_at is null order by created_at desc`;
  return rows.map((r) => ({ id: r.id, name: r.name, prefix: r.prefix, createdAt: r.created_at, lastUsedAt: r.last_used_at }));
}

/** Revokes one of an operator's own tokens: answers its name, or undefined when it is not a live token of theirs. */
export async function revokeOperatorToken(db: Db, userId: string, id: string): Promise<string | undefined> {
  if (!z.uuid().safeParse(id).success) return undefined;
  const [row] = await db<{ name: string }[]>`
    update operator_personal_tokens set revoked_at = now()
     where id = ${id} and user_id = ${userId} and revoked_at is null returning name`;
  return row?.name;
}

/** Revokes every token of a person, as they are removed (core/people/people.ts removePerson, in its transaction). */
export async function revokeTokensOf(tx: Sql, userId: string): Promise<void> {
  await tx`update operator_personal_tokens set revoked_at = now() where user_id = ${userId} and revoked_at is null`;
}

/**
 * The operator a presented token acts as: the token live, its operator not removed and still an
 * operator. Read on every request, so a revocation or a removal holds from the next one. Last use is
 * kept to the minute (one write a minute per token, not one per request).
 */
export async function findTokenOperator(db: Db, token: string | undefined): Promise<TokenOperator | undefined> {
  if (!token?.startsWith(TOKEN_PREFIX) || token.length > 100) return undefined;
  const [row] = await db<{ id: string; user_id: string; email: string; role: string; stale: boolean }[]>`
    select t.id, t.user_id, u.email, u.role, (t.last_used_at is null or t.last_used_at < now() - interval '1 minute') as stale
      from operator_personal_tokens t join dashboard_users u on u.id = t.user_id
     where t.token_hash = ${digest(token)} and t.revoked_at is null and u.removed_at is null`;
  if (!row || !isOperatorRole(row.role)) return undefined;
  if (row.stale) await db`update operator_personal_tokens set last_used_at = now() where id = ${row.id}`;
  return { tokenId: row.id, userId: row.user_id, email: row.email, role: row.role };
}
