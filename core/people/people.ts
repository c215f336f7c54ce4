import { createHash, randomBytes } from 'node:crypto';
import type { Db, Sql } from '../db/client.js';
import type { Role } from './roles.js';
import { revokeTokensOf } from './operator-tokens.js';
import { endUserSessions } from './sessions.js';

/** A merchant's team member, or an operator (platformUuid undefined). */
export interface Person {
  id: string;
  platformUuid: string | undefined;
  email: string;
  role: Role;
  createdAt: Date;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
}

/** Whose people: one merchant's, or the operators (null). */
export type Team = string | null;

export const INVITATION_LIFETIME_MS = 48 * 3600 * 1000;
const digest = (token: string) => createHash('sha256').update(token).digest();

type PersonRow = { id: string; platform_uuid: string | null; email: string; role: Role; created_at: Date };
const person = (r: PersonRow): Person => ({ id: r.id, platformUuid: r.platform_uuid ?? undefined, email: r.email, role: r.role, createdAt: r.created_at });

/** The team's people, oldest first. */
export async function listPeople(db: Db, team: Team): Promise<Person[]> {
  const rows = await db<PersonRow[]>`
    select id, platform_uuid, email, role, created_at from dashboard_users
     where platform_uuid is not distinct from ${team} and removed_at is null order by created_at, id`;
  return rows.map(person);
}

export async function findPerson(db: Db, team: Team, id: string): Promise<Person | undefined> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
  const [row] = await db<PersonRow[]>`
    select id, platform_uuid, email, role, created_at from dashboard_users
     where id = ${id} and platform_uuid is not distinct from ${team} and removed_at is null`;
  return row && person(row);
}

/** Changes a member's role and ends their sessions: they sign in again under the new role. */
export async function changeRole(db: Db, team: Team, id: string, role: Role): Promise<boolean> {
  return db.begin(async (tx) => {
    const changed = await tx`
      update dashboard_users set role = ${role}
       where id = ${id} and platform_uuid is not distinct from ${team} and removed_at is null and role <> ${role}`;
    if (changed.count) await endUserSessions(tx, id);
    return changed.count > 0;
  });
}

/** Removes a member, ending every session of theirs and revoking their personal tokens at once. */
export async function removePerson(db: Db, team: Team, id: string): Promise<boolean> {
  return db.begin(async (tx) => {
    const removed = await tx`
      update dashboard_users set removed_at = now() where id = ${id} and platform_uuid is not distinct from ${team} and removed_at is null`;
    if (removed.count) {
      await endUserSessions(tx, id);
      await revokeTokensOf(tx, id);
    }
    return removed.count > 0;
  });
}

/** An invitation for an email already on the team: its role is changed on the People page, not by a link. */
export class AlreadyOnTeamError extends Error {
  constructor(readonly email: string) {
    super(`${email} is already on the team: change their role on the People page instead.`);
  }
}

/**
 * Invites an email to the team with a role: answers the link's token (shown once; only its SHA-256 is
 * kept). An email already on the team is refused (AlreadyOnTeamError): accepting would give its
 * member a new role and attach the passkey of whoever opens the link, and the link is shown to the
 * inviter. Only the operators' CLI passes `reenrol`, to let a member who lost every passkey enrol one
 * again (docs/merchants.md).
 */
export async function invite(
  db: Db,
  team: Team,
  invitation: { email: string; role: Role },
  options: { reenrol?: boolean } = {},
): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const email = invitation.email.toLowerCase();
  const [row] = await db<{ id: string; expires_at: Date }[]>`
    insert into dashboard_invitations (token_hash, platform_uuid, email, role, expires_at)
    select ${digest(token)}, ${team}, ${email}, ${invitation.role}, now() + ${INVITATION_LIFETIME_MS} * interval '1 millisecond'
     where ${options.reenrol === true}
        or not exists (select 1 from dashboard_users where platform_uuid is not distinct from ${team} and email = ${email} and removed_at is null)
    returning id, expires_at`;
  if (!row) throw new AlreadyOnTeamError(email);
  return { id: row.id, token, expiresAt: row.expires_at };
}

/** The team's invitations neither accepted, revoked nor expired, newest first. */
export async function pendingInvitations(db: Db, team: Team): Promise<Invitation[]> {
  const rows = await db<{ id: string; email: string; role: Role; created_at: Date; expires_at: Date }[]>`
    select id, email, role, created_at, expires_at from dashboard_invitations
     where platform_uuid is not distinct from ${team} and accepted_at is null and revoked_at is null and expires_at > now()
     order by created_at desc, id`;
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, createdAt: r.created_at, expiresAt: r.expires_at }));
}

export async function revokeInvitation(db: Db, team: Team, id: string): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return false;
  const revoked = await db`
    update dashboard_invitations set revoked_at = now()
     where id = ${id} and platform_uuid is not distinct from ${team} and accepted_at is null and revoked_at is null`;
  return revoked.count > 0;
}

/** The invitation a link's token names, if still pending. */
export async function findInvitation(db: Db, token: string | undefined): Promise<(Invitation & { platformUuid: string | undefined }) | undefined> {
  if (!token || token.length > 64) return undefined;
  const [r] = await db<{ id: string; platform_uuid: string | null; email: string; role: Role; created_at: Date; expires_at: Date }[]>`
    select id, platform_uuid, email, role, created_at, expires_at from dashboard_invitations
     where token_hash = ${digest(token)} and accepted_at is null and revoked_at is null and expires_at > now()`;
  return r && { id: r.id, platformUuid: r.platform_uuid ?? undefined, email: r.email, role: r.role, createdAt: r.created_at, expiresAt: r.expires_at };
}

/**
 * Accepts an invitation once: marks it used and makes (or, for someone already on the team, re-roles)
 * the person, in the transaction the caller uses to store their first passkey. Undefined when the link
 * was used, revoked or expired meanwhile, and for an invitation older than the member its email now
 * names: one sent before they joined is not theirs to take over (only `invite`'s `reenrol`, after, is).
 */
export async function acceptInvitation(tx: Sql, token: string): Promise<Person | undefined> {
  const [inv] = await tx<{ platform_uuid: string | null; email: string; role: Role; created_at: Date }[]>`
    update dashboard_invitations set accepted_at = now()
     where token_hash = ${digest(token)} and accepted_at is null and revoked_at is null and expires_at > now()
     returning platform_uuid, email, role, created_at`;
  if (!inv) return undefined;
  const [existing] = await tx<PersonRow[]>`
    select id, platform_uuid, email, role, created_at from dashboard_users
     where platform_uuid is not distinct from ${inv.platform_uuid} and email = ${inv.email} and removed_at is null for update`;
  if (existing && existing.created_at > inv.created_at) return undefined;
  if (existing) {
    await tx`update dashboard_users set role = ${inv.role} where id = ${existing.id} and role <> ${inv.role}`;
    await endUserSessions(tx, existing.id);
    return { ...person(existing), role: inv.role };
  }
  const [created] = await tx<PersonRow[]>`
    insert into dashboard_users (platform_uuid, email, role) values (${inv.platform_uuid}, ${inv.email}, ${inv.role})
    returning id, platform_uuid, email, role, created_at`;
  return person(created!);
}

/** The most a support member may refund at once, per currency, in minor units. */
export async function supportRefundLimits(db: Db, platformUuid: string): Promise<Map<string, number>> {
  const rows = await db<{ currency: string; max_amount: string }[]>`
    select currency, max_amount from merchant_support_refund_limits where platform_uuid = ${platformUuid} order by currency`;
  return new Map(rows.map((r) => [r.currency, Number(r.max_amount)]));
}

export async function setSupportRefundLimit(db: Db, platformUuid: string, currency: string, maxAmount: number): Promise<void> {
  await db`
    insert into merchant_support_refund_limits (platform_uuid, currency, max_amount) values (${platformUuid}, ${currency}, ${maxAmount})
    on conflict (platform_uuid, currency) do update set max_amount = excluded.max_amount`;
}

/** The people an email is on one side (a merchant's teams, or the operators), oldest membership first. */
export async function peopleWithEmail(db: Db, email: string, side: 'merchant' | 'operator'): Promise<Person[]> {
  const rows = await db<PersonRow[]>`
    select id, platform_uuid, email, role, created_at from dashboard_users
     where email = ${email.toLowerCase()} and removed_at is null and (platform_uuid is null) = ${side === 'operator'}
     order by created_at, id`;
  return rows.map(person);
}
