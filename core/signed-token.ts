import { timingSafeEqual } from 'node:crypto';
import { keyedHash, type SecretKey } from './crypto.js';

const FIELD = /^[A-Za-z0-9_-]+$/;
const EXPIRY = /^\d{13}$/;
const MAC = /^[0-9a-f]{64}$/;

export interface SignedTokens {
  /** `<field>.….<expiry in ms>.<HMAC-SHA256 hex>`; fields are ids (letters, digits, `-`, `_`). */
  issue(fields: readonly string[]): string;
  /** The fields of a token this key signed that has not expired; undefined for anything else. */
  verify(value: string | undefined): { fields: string[]; expiresAt: number } | undefined;
}

/**
 * Expiring values a browser or a link carries in place of a credential: the operators' codec cookie,
 * the dashboard's session cookie, the CLI's dashboard sign-in link. Each use signs with a key derived
 * for it alone (`keyring.deriveKey(purpose)`), so a token made for one use is worthless for another;
 * it holds ids and an expiry, never the credential it stands for.
 */
export function signedTokens(key: SecretKey, lifetimeMs: number): SignedTokens {
  const mac = (signed: string) => Buffer.from(keyedHash(key, signed), 'hex');
  return {
    issue(fields) {
      const bad = fields.find((f) => !FIELD.test(f));
      if (bad !== undefined) throw new Error(`a signed token field must be an id, not ${JSON.stringify(bad)}`);
      const signed = [...fields, String(Date.now() + lifetimeMs)].join('.');
      return `${signed}.${mac(signed).toString('hex')}`;
    },
    verify(value) {
      const parts = value?.split('.') ?? [];
      if (parts.length < 2) return undefined;
      const given = parts.pop()!;
      const expiry = parts.at(-1)!;
      if (!MAC.test(given) || !EXPIRY.test(expiry) || Number(expiry) <= Date.now()) return undefined;
      if (!parts.slice(0, -1).every((f) => FIELD.test(f))) return undefined;
      if (!timingSafeEqual(Buffer.from(given, 'hex'), mac(parts.join('.')))) return undefined;
      return { fields: parts.slice(0, -1), expiresAt: Number(expiry) };
    },
  };
}
