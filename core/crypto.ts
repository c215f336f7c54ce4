import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM; the output is iv ‖ tag ‖ ciphertext, so one column holds it all. */
export function encrypt(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function decrypt(key: Buffer, sealed: Buffer): string {
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * A key of its own for one purpose (HKDF-SHA256 from the data key), so an HMAC made for one use can
 * never stand for another, and the AES key is not also an HMAC key.
 */
export function deriveKey(dataKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `hosted-checkout/${purpose}`, 32));
}

/** HMAC-SHA256, hex; for values we only ever compare (OTP codes). */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** A URL-safe bearer token with `bytes` of CSPRNG entropy. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
