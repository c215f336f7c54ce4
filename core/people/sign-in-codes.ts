import { randomInt } from 'node:crypto';
import { keyedHash, type Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';

/**
 * The one owner of `dashboard_sign_in_codes` (migration 058): one-time codes emailed to a person, the
 * fallback to a passkey (docs/decisions/dashboard.md). Six digits, SIGN_IN_CODE_LIFETIME_MS, once,
 * SIGN_IN_CODE_ATTEMPTS tries; only the newest code of an email and side counts, so asking again
 * replaces the last. Kept as an HMAC under a key derived from the data key, bound to the email and
 * side: the table alone cannot test a guess, and a code is worth nothing for another address.
 */
export const SIGN_IN_CODE_LIFETIME_MS = 10 * 60 * 1000;
export const SIGN_IN_CODE_ATTEMPTS = 5;

export type Side = 'merchant' | 'operator';

const codeHash = (keyring: Keyring, email: string, side: Side, code: string) =>
  keyedHash(keyring.deriveKey('dashboard-sign-in-code/v1'), `${side}:${email}:${code}`);

/**
 * A fresh code for this email and side, stored as its hash; answers the code, to be emailed and
 * forgotten. Codes a day past their expiry go as it is made: nothing reads them any more.
 */
export async function issueSignInCode(db: Db, keyring: Keyring, email: string, side: Side): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await db`delete from dashboard_sign_in_codes where expires_at < now() - interval '1 day'`;
  await db`
    insert into dashboard_sign_in_codes (email, operators, code_hash, expires_at)
    values (${email}, ${side === 'operator'}, ${codeHash(keyring, email, side, code)}, now() + ${SIGN_IN_CODE_LIFETIME_MS} * interval '1 millisecond')`;
  return code;
}

/**
 * `accepted`: the code was right, and is now used. `wrong`: a try spent, `attemptsLeft` remain.
 * `locked`: the newest code has no tries left (this one was not even compared). `none`: no live code
 * (never asked, expired, used, or an address nobody has): told apart from `wrong` only in the logs.
 */
export type CodeCheck = { outcome: 'accepted' } | { outcome: 'wrong'; attemptsLeft: number } | { outcome: 'locked' } | { outcome: 'none' };

/** Spends one try of the email's newest live code on `code`, in one statement: two tries at once cannot both use it. */
export async function checkSignInCode(db: Db, keyring: Keyring, email: string, side: Side, code: string): Promise<CodeCheck> {
  const operators = side === 'operator';
  const hash = /^\d{6}$/.test(code) ? codeHash(keyring, email, side, code) : '';
  const [tried] = await db<{ attempts: number; accepted: boolean }[]>`
    update dashboard_sign_in_codes c set attempts = c.attempts + 1, used_at = case when c.code_hash = ${hash} then now() end
      from (select id from dashboard_sign_in_codes where email = ${email} and operators = ${operators} order by created_at desc, id limit 1) newest
     where c.id = newest.id and c.used_at is null and c.expires_at > now() and c.attempts < ${SIGN_IN_CODE_ATTEMPTS}
     returning c.attempts, c.used_at is not null as accepted`;
  if (tried?.accepted) return { outcome: 'accepted' };
  if (tried) return { outcome: 'wrong', attemptsLeft: SIGN_IN_CODE_ATTEMPTS - tried.attempts };
  const [newest] = await db<{ live: boolean }[]>`
    select used_at is null and expires_at > now() as live from dashboard_sign_in_codes
     where email = ${email} and operators = ${operators} order by created_at desc, id limit 1`;
  return newest?.live ? { outcome: 'locked' } : { outcome: 'none' };
}
