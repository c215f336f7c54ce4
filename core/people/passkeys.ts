import type { Db, Sql } from '../db/client.js';
import type { Person } from './people.js';
import type { Role } from './roles.js';
import { endUserSessions } from './sessions.js';

/** A WebAuthn credential as @simplewebauthn/server verifies with it: its id (base64url), public key, counter. */
export interface StoredPasskey {
  id: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
}

export interface PasskeySummary {
  id: string;
  createdAt: Date;
  lastUsedAt: Date | undefined;
}

export async function addPasskey(sql: Sql, userId: string, passkey: StoredPasskey): Promise<void> {
  await sql`
    insert into dashboard_passkeys (credential_id, user_id, public_key, counter, transports)
    values (${passkey.id}, ${userId}, ${Buffer.from(passkey.publicKey)}, ${passkey.counter}, ${passkey.transports})`;
}

/** A passkey and its person, if neither was deleted nor removed. */
export async function findPasskey(db: Db, credentialId: string): Promise<{ passkey: StoredPasskey; person: Person } | undefined> {
  if (credentialId.length > 1400) return undefined;
  const [row] = await db<
    {
      credential_id: string;
      public_key: Buffer;
      counter: string;
      transports: string[];
      id: string;
      platform_uuid: string | null;
      email: string;
      role: Role;
      created_at: Date;
    }[]
  >`
    select p.credential_id, p.public_key, p.counter, p.transports, u.id, u.platform_uuid, u.email, u.role, u.created_at
      from dashboard_passkeys p join dashboard_users u on u.id = p.user_id
     where p.credential_id = ${credentialId} and p.deleted_at is null and u.removed_at is null`;
  if (!row) return undefined;
  return {
    passkey: { id: row.credential_id, publicKey: new Uint8Array(row.public_key), counter: Number(row.counter), transports: row.transports },
    person: { id: row.id, platformUuid: row.platform_uuid ?? undefined, email: row.email, role: row.role, createdAt: row.created_at },
  };
}

/** After a sign-in: the authenticator's new counter, and when. */
export async function recordPasskeyUse(db: Db, credentialId: string, counter: number): Promise<void> {
  await db`update dashboard_passkeys set counter = ${counter}, last_used_at = now() where credential_id = ${credentialId}`;
}

export async function listPasskeys(db: Db, userId: string): Promise<PasskeySummary[]> {
  const rows = await db<{ credential_id: string; created_at: Date; last_used_at: Date | null }[]>`
    select credential_id, created_at, last_used_at from dashboard_passkeys where user_id = ${userId} and deleted_at is null order by created_at`;
  return rows.map((r) => ({ id: r.credential_id, createdAt: r.created_at, lastUsedAt: r.last_used_at ?? undefined }));
}

/** Deletes one of a person's passkeys and ends every session of theirs: whoever held it is signed out. */
export async function deletePasskey(db: Db, userId: string, credentialId: string): Promise<boolean> {
  return db.begin(async (tx) => {
    const deleted = await tx`
      update dashboard_passkeys set deleted_at = now() where credential_id = ${credentialId} and user_id = ${userId} and deleted_at is null`;
    if (deleted.count) await endUserSessions(tx, userId);
    return deleted.count > 0;
  });
}
