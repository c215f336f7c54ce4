import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * A key as the functions below take it. The keyring hands out KeyObjects made once: on Node 24 each
 * cipher, decipher or HMAC given raw bytes builds a key object of its own: 10–14 µs a call, against
 * 2–5 µs with one prepared (reports/bench-notes.md, "Keys prepared once; …").
 */
export type SecretKey = KeyObject | Buffer;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** The synthetic IV of `sivSeal`: 128 bits of HMAC-SHA256, also its authentication tag. */
const SIV_BYTES = 16;
/** First byte of a sealed value that names its key: 0x01 ‖ len(id) ‖ id ‖ iv ‖ tag ‖ ciphertext. */
const TAGGED_FORMAT = 0x01;

export const KEY_ID_PATTERN = /^[a-z0-9-]{1,32}$/;
/** The id `DATA_ENCRYPTION_KEY` alone gets: a keyring of one key. */
export const LEGACY_KEY_ID = 'k0';

/** AES-256-GCM; the output is iv ‖ tag ‖ ciphertext, so one column holds it all. */
export function encrypt(key: SecretKey, plaintext: string | Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Opens what `encrypt` sealed; throws when the key is wrong or the bytes were altered. */
export function decryptBytes(key: SecretKey, sealed: Uint8Array): Buffer {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

export function decrypt(key: SecretKey, sealed: Buffer): string {
  return decryptBytes(key, sealed).toString('utf8');
}

/**
 * A key of its own for one purpose (HKDF-SHA256 from the data key), so an HMAC made for one use can
 * never stand for another, and the AES key is not also an HMAC key.
 */
export function deriveKey(dataKey: SecretKey, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `hosted-checkout/${purpose}`, 32));
}

/** HMAC-SHA256, hex; for values we only ever compare (OTP codes). */
export function keyedHash(key: SecretKey, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/**
 * Deterministic authenticated encryption, SIV-style (RFC 5297's construction with HMAC-SHA256 as
 * its PRF): the IV is the first 16 bytes of HMAC(macKey, plaintext), the ciphertext AES-256-CTR
 * under encKey with that IV. The same plaintext always seals to the same bytes (which is the point:
 * a value that must not change between attempts); nothing else about it shows, and `sivOpen` checks
 * the IV against the plaintext, so an altered value does not open. Two keys, never the same one.
 */
export function sivSeal(keys: { encKey: SecretKey; macKey: SecretKey }, plaintext: string): Buffer {
  const data = Buffer.from(plaintext, 'utf8');
  const iv = createHmac('sha256', keys.macKey).update(data).digest().subarray(0, SIV_BYTES);
  const cipher = createCipheriv('aes-256-ctr', keys.encKey, iv);
  return Buffer.concat([iv, cipher.update(data), cipher.final()]);
}

/** The plaintext `sivSeal` sealed under these keys, or undefined for anything else. */
export function sivOpen(keys: { encKey: SecretKey; macKey: SecretKey }, sealed: Buffer): string | undefined {
  if (sealed.length <= SIV_BYTES) return undefined;
  const iv = sealed.subarray(0, SIV_BYTES);
  const decipher = createDecipheriv('aes-256-ctr', keys.encKey, iv);
  const data = Buffer.concat([decipher.update(sealed.subarray(SIV_BYTES)), decipher.final()]);
  const expected = createHmac('sha256', keys.macKey).update(data).digest().subarray(0, SIV_BYTES);
  return timingSafeEqual(iv, expected) ? data.toString('utf8') : undefined;
}

/** A URL-safe bearer token with `bytes` of CSPRNG entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * The data keys, oldest first. The newest seals; every key opens. A sealed value names the key that
 * sealed it, so rotating is: add a key at the end, restart, `npm run reseal`, drop the old key.
 */
export interface Keyring {
  /** Ids, oldest first. */
  readonly keyIds: readonly string[];
  /** The newest key's id: what `seal` and the payload codec use. */
  readonly sealingKeyId: string;
  /** 0x01 ‖ len(id) ‖ id ‖ iv ‖ tag ‖ ciphertext under the newest key. */
  seal(plaintext: string): Buffer;
  /** Opens a tagged value with the key it names, or a legacy untagged one with whichever key fits. */
  open(sealed: Buffer): string;
  /** The id a sealed value names; undefined for a legacy untagged value (or one naming no key we hold). */
  sealedWith(sealed: Buffer): string | undefined;
  /** iv ‖ tag ‖ ciphertext under the newest key, for callers that keep the key id beside it. */
  encryptBytes(plaintext: Uint8Array): { keyId: string; data: Buffer };
  decryptBytes(keyId: string, data: Uint8Array): Buffer;
  /** A key for one purpose (HMACs: OTP hashes, CSRF tokens), derived from the newest key once. */
  deriveKey(purpose: string): KeyObject;
  /** The key for one purpose derived from every key, newest first: what opens a value made before a rotation. */
  deriveKeys(purpose: string): KeyObject[];
}

export class KeyringError extends Error {
  override name = 'KeyringError';
  constructor(readonly problems: string[]) {
    super(`Invalid data encryption keys:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** One line per problem with these keys; empty when they may be used. */
export function keyProblems(keys: ReadonlyArray<{ id: string; key: Buffer }>): string[] {
  const problems: string[] = [];
  if (keys.length === 0) problems.push('no key given');
  const seen = new Set<string>();
  for (const { id, key } of keys) {
    if (!KEY_ID_PATTERN.test(id)) problems.push(`key id "${id}" must match [a-z0-9-]{1,32}`);
    if (seen.has(id)) problems.push(`key id "${id}" appears more than once`);
    seen.add(id);
    if (key.length !== KEY_BYTES) problems.push(`key "${id}" must be exactly 32 bytes, base64-encoded (it is ${key.length}; try: openssl rand -base64 32)`);
    else if (key.every((b) => b === key[0])) problems.push(`key "${id}" is one byte repeated 32 times: not a key (try: openssl rand -base64 32)`);
  }
  return problems;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses `DATA_ENCRYPTION_KEYS` (`id:base64key,id:base64key`, newest last) into key entries, with one
 * line per problem; `DATA_ENCRYPTION_KEY` alone is the one key `k0`.
 */
export function parseKeys(spec: { keys?: string; key?: string }): { keys: Array<{ id: string; key: Buffer }>; problems: string[] } {
  const problems: string[] = [];
  const keys: Array<{ id: string; key: Buffer }> = [];
  if (spec.keys !== undefined && spec.key !== undefined) {
    return { keys, problems: ['set DATA_ENCRYPTION_KEYS or DATA_ENCRYPTION_KEY, not both (DATA_ENCRYPTION_KEY alone is the keyring "k0:<key>")'] };
  }
  if (spec.keys !== undefined) {
    for (const [i, entry] of spec.keys.split(',').entries()) {
      const colon = entry.indexOf(':');
      if (colon < 0) {
        problems.push(`entry ${i + 1} must be id:base64key`);
        continue;
      }
      const [id, value] = [entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()];
      if (!BASE64.test(value)) problems.push(`key "${id}" is not base64`);
      keys.push({ id, key: Buffer.from(value, 'base64') });
    }
  } else if (spec.key !== undefined) {
    if (!BASE64.test(spec.key.trim())) problems.push(`key "${LEGACY_KEY_ID}" (DATA_ENCRYPTION_KEY) is not base64`);
    keys.push({ id: LEGACY_KEY_ID, key: Buffer.from(spec.key.trim(), 'base64') });
  } else {
    return { keys, problems: ['DATA_ENCRYPTION_KEYS (id:base64key,… newest last) or DATA_ENCRYPTION_KEY is required (try: openssl rand -base64 32)'] };
  }
  return { keys, problems: [...problems, ...keyProblems(keys)] };
}

/** A keyring over these keys, oldest first; throws KeyringError listing every problem with them. */
export function createKeyring(entries: ReadonlyArray<{ id: string; key: Buffer }>): Keyring {
  const problems = keyProblems(entries);
  if (problems.length) throw new KeyringError(problems);
  const keys = new Map(entries.map(({ id, key }) => [id, createSecretKey(Buffer.from(key))]));
  const sealingKeyId = entries[entries.length - 1]!.id;
  const sealingKey = keys.get(sealingKeyId)!;
  // Once per purpose (a fixed set of names in the code): derived on every use, CSRF's key was derived on every page action.
  const derived = new Map<string, KeyObject[]>();
  const derivedKeys = (purpose: string): KeyObject[] => {
    let newestFirst = derived.get(purpose);
    if (!newestFirst) {
      newestFirst = [...keys.values()].reverse().map((key) => createSecretKey(deriveKey(key, purpose)));
      derived.set(purpose, newestFirst);
    }
    return newestFirst;
  };

  const tagOf = (sealed: Buffer): { id: string; body: Buffer } | undefined => {
    if (sealed.length < 2 || sealed[0] !== TAGGED_FORMAT) return undefined;
    const length = sealed[1]!;
    if (length < 1 || length > 32 || sealed.length < 2 + length + IV_BYTES + TAG_BYTES) return undefined;
    const id = sealed.subarray(2, 2 + length).toString('latin1');
    return keys.has(id) ? { id, body: sealed.subarray(2 + length) } : undefined;
  };

  const keyring: Keyring = {
    keyIds: entries.map((e) => e.id),
    sealingKeyId,
    seal(plaintext) {
      const id = Buffer.from(sealingKeyId, 'latin1');
      return Buffer.concat([Buffer.from([TAGGED_FORMAT, id.length]), id, encrypt(sealingKey, plaintext)]);
    },
    open(sealed) {
      const tagged = tagOf(sealed);
      if (tagged) {
        try {
          return decrypt(keys.get(tagged.id)!, tagged.body);
        } catch {
          // A legacy value whose random IV happens to start like a tag: tried below.
        }
      }
      for (const key of keys.values()) {
        try {
          return decrypt(key, sealed);
        } catch {
          // not this key
        }
      }
      const named = sealed[0] === TAGGED_FORMAT && sealed.length > 2 ? sealed.subarray(2, 2 + sealed[1]!).toString('latin1') : undefined;
      throw new Error(
        named && KEY_ID_PATTERN.test(named) && !keys.has(named)
          ? `sealed with key "${named}", which is not in the keyring (${[...keys.keys()].join(', ')})`
          : `no key in the keyring (${[...keys.keys()].join(', ')}) opens this value`,
      );
    },
    sealedWith(sealed) {
      const tagged = tagOf(sealed);
      if (!tagged) return undefined;
      try {
        decrypt(keys.get(tagged.id)!, tagged.body);
        return tagged.id;
      } catch {
        return undefined;
      }
    },
    encryptBytes(plaintext) {
      return { keyId: sealingKeyId, data: encrypt(sealingKey, plaintext) };
    },
    decryptBytes(keyId, data) {
      const key = keys.get(keyId);
      if (!key) throw new Error(`encrypted with key "${keyId}", which is not in the keyring (${[...keys.keys()].join(', ')})`);
      return decryptBytes(key, data);
    },
    deriveKey(purpose) {
      return derivedKeys(purpose)[0]!;
    },
    deriveKeys(purpose) {
      return [...derivedKeys(purpose)];
    },
  };
  return keyring;
}
