import { createHash, randomBytes } from 'node:crypto';
import type { Db, Sql } from '../db/client.js';
import type { Environment } from '../config.js';
import type { Role } from './roles.js';

/** What opened a session: a person, or one of the two bootstrap credentials. */
export type SessionCredential = { userId: string } | { apiKeyId: string } | { operatorTokenDigest: string };

/** A live session: who it is for and with which role now. */
export interface DashboardSession {
  platformUuid: string | undefined;
  environment: Environment | undefined;
  role: Role;
  userId: string | undefined;
  email: string | undefined;
  apiKeyId: string | undefined;
  /** The API key's name, for the audit log's actor. */
  apiKeyName: string | undefined;
  operatorTokenDigest: string | undefined;
}

const digest = (token: string) => createHash('sha256').update(token).digest();

/** Opens a session and answers the cookie's value (32 random bytes); only its SHA-256 is stored. */
export async function startSession(
  db: Db,
  session: { platformUuid: string | undefined; role: Role; credential: SessionCredential; lifetimeMs: number },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const c = session.credential;
  await db`
    insert into dashboard_sessions (token_hash, user_id, platform_uuid, api_key_id, operator_token_digest, role, expires_at)
    values (${digest(token)}, ${'userId' in c ? c.userId : null}, ${session.platformUuid ?? null}, ${'apiKeyId' in c ? c.apiKeyId : null},
            ${'operatorTokenDigest' in c ? c.operatorTokenDigest : null}, ${session.role},
            now() + ${session.lifetimeMs} * interval '1 millisecond')`;
  return token;
}

/**
 * The session a cookie names, if open, unexpired, and its credential still good: the user not removed
 * (the role is the user's now), the API key still the merchant's active key, the merchant active.
 */
export async function findSession(db: Db, token: string | undefined): Promise<DashboardSession | undefined> {
  if (!token || token.length > 64) return undefined;
  const [row] = await db<
    {
      platform_uuid: string | null;
      environment: Environment | null;
      role: Role;
      user_id: string | null;
      email: string | null;
      api_key_id: string | null;
      api_key_name: string | null;
      operator_token_digest: string | null;
    }[]
  >`
    select s.platform_uuid, m.environment, coalesce(u.role, s.role) as role, s.user_id, u.email, s.api_key_id, k.name as api_key_name, s.operator_token_digest
      from dashboard_sessions s
      left join dashboard_users u on u.id = s.user_id
      left join merchant_api_keys k on k.id = s.api_key_id
      left join merchants m on m.platform_uuid = s.platform_uuid
     where s.token_hash = ${digest(token)} and s.ended_at is null and s.expires_at > now()
       and (s.user_id is null or u.removed_at is null)
       and (s.api_key_id is null or (k.revoked_at is null and k.platform_uuid = s.platform_uuid))
       and (s.platform_uuid is null or m.status = 'active')`;
  if (!row) return undefined;
  return {
    platformUuid: row.platform_uuid ?? undefined,
    environment: row.environment ?? undefined,
    role: row.role,
    userId: row.user_id ?? undefined,
    email: row.email ?? undefined,
    apiKeyId: row.api_key_id ?? undefined,
    apiKeyName: row.api_key_name ?? undefined,
    operatorTokenDigest: row.operator_token_digest ?? undefined,
  };
}

/** Ends the session this cookie names (sign-out). */
export async function endSession(db: Db, token: string): Promise<void> {
  await db`update dashboard_sessions set ended_at = now() where token_hash = ${digest(token)} and ended_at is null`;
}

/** Ends every session of a user (a role change, a removal, a passkey's deletion): the next request is signed out. */
export async function endUserSessions(sql: Sql, userId: string): Promise<number> {
  const ended = await sql`update dashboard_sessions set ended_at = now() where user_id = ${userId} and ended_at is null`;
  return ended.count;
}
