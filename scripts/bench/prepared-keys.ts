import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { createKeyring, decryptBytes, deriveKey, encrypt, keyedHash, type Keyring, type SecretKey } from '../../core/crypto.js';
import { createEncryptionCodec } from '../../core/temporal/codec.js';
import { median, round } from './load.js';
import { costRatio, measureInRounds } from './rounds.js';

/**
 * `npm run -s bench:keys`: what the keyring's keys cost each call, prepared once as KeyObjects (the
 * keyring now) against raw bytes handed to every cipher and HMAC, with the HMAC key derived per call
 * (the keyring until 1.2.0), alternating, in one run, on the Node that runs it. Two units of work:
 * the payload codec sealing and opening every payload of the recorded 1.2.0 paid session once, and
 * one keyed hash for a purpose (an OTP hash, a CSRF token). No server: only this process's CPU.
 */
const { values } = parseArgs({ options: { iterations: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '7' } } });
const options = z.object({ iterations: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const HISTORY = fileURLToPath(new URL('../../test/fixtures/histories/1.2.0/cart-session-paid.history.json', import.meta.url));

/** Every payload the session's history holds, as the codec met them when they were written. */
const payloads: Payload[] = [];
const collect = (value: unknown): void => {
  if (Array.isArray(value)) value.forEach(collect);
  else if (value && typeof value === 'object') {
    const { metadata, data } = value as { metadata?: unknown; data?: unknown };
    if (metadata && typeof metadata === 'object' && typeof data === 'string') {
      const bytes = (encoded: string) => new Uint8Array(Buffer.from(encoded, 'base64'));
      payloads.push({ metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, bytes(String(v))])), data: bytes(data) });
    } else Object.values(value).forEach(collect);
  }
};
collect(JSON.parse(readFileSync(HISTORY, 'utf8')));

const rawKey = randomBytes(32);
const keyring = createKeyring([{ id: 'k1', key: rawKey }]);
/** The keyring's codec as it was: the raw key to every cipher and decipher. */
const rawBytesKeyring: Keyring = {
  ...keyring,
  encryptBytes: (plaintext) => ({ keyId: 'k1', data: encrypt(rawKey, plaintext) }),
  decryptBytes: (_keyId, data) => decryptBytes(rawKey, data),
};

const microsPerCall = async (work: () => unknown): Promise<number> => {
  const started = process.cpuUsage();
  for (let i = 0; i < options.iterations; i++) await work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / options.iterations;
};
const sessionPayloads = (ring: Keyring) => {
  const codec = createEncryptionCodec(ring);
  return async () => codec.decode(await codec.encode(payloads));
};
const keyedHashWith = (keyFor: (purpose: string) => SecretKey) => () => keyedHash(keyFor('otp/v1'), 'cart:123456');

const variants = {
  sessionPayloadsPrepared: sessionPayloads(keyring),
  sessionPayloadsRawBytes: sessionPayloads(rawBytesKeyring),
  keyedHashPrepared: keyedHashWith((purpose) => keyring.deriveKey(purpose)),
  // As it was: the purpose's key derived again on each use, and handed over as bytes.
  keyedHashRawBytes: keyedHashWith((purpose) => deriveKey(rawKey, purpose)),
};
type Variant = keyof typeof variants;
for (const work of Object.values(variants)) await microsPerCall(work);
const rounds = await measureInRounds(Object.keys(variants) as Variant[], options.rounds, (name) => microsPerCall(variants[name]));

const us = (name: Variant) => round(median(rounds.map((r) => r[name])));
/** Prepared over raw bytes, read in the median round, where both ran back to back (./rounds.ts). */
const preparedOver = (prepared: Variant, rawBytes: Variant) =>
  costRatio(
    rounds,
    (r) => r[prepared],
    (r) => r[rawBytes],
  ).ratio;
process.stdout.write(
  `${JSON.stringify(
    {
      node: process.version,
      payloadsPerPaidSession: payloads.length,
      iterations: options.iterations,
      rounds: options.rounds,
      microsPerCall: Object.fromEntries(Object.keys(variants).map((k) => [k, us(k as Variant)])),
      preparedOverRawBytes: {
        sessionPayloads: preparedOver('sessionPayloadsPrepared', 'sessionPayloadsRawBytes'),
        keyedHash: preparedOver('keyedHashPrepared', 'keyedHashRawBytes'),
      },
    },
    null,
    2,
  )}\n`,
);
