import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';
import { createKeyring, deriveKey, encrypt, KeyringError, parseKeys } from '../../core/crypto.js';

const b64 = (key: Buffer) => key.toString('base64');
const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
const configWith = (env: Record<string, string>) => loadConfig({ CHECKOUT_ENV: 'sandbox', DATABASE_URL: 'postgres://x', ...env });
const problemsOf = (env: Record<string, string>) => {
  try {
    configWith(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message.split('\n').slice(1);
    throw err;
  }
  return [];
};

describe('keyring settings', () => {
  it('reads DATA_ENCRYPTION_KEYS oldest first, the last one sealing', () => {
    const { keyring } = configWith({ DATA_ENCRYPTION_KEYS: `k1:${b64(k1)}, k2:${b64(k2)}` });
    expect(keyring.keyIds).toEqual(['k1', 'k2']);
    expect(keyring.sealingKeyId).toBe('k2');
  });

  it('takes DATA_ENCRYPTION_KEY alone as the keyring of one key, k0', () => {
    const { keyring } = configWith({ DATA_ENCRYPTION_KEY: b64(k1) });
    expect(keyring.keyIds).toEqual(['k0']);
    expect(keyring.sealingKeyId).toBe('k0');
  });

  it('refuses weak, short and duplicate keys, one readable line per problem', () => {
    const problems = problemsOf({ DATA_ENCRYPTION_KEYS: `a:${b64(Buffer.alloc(32))},b:${b64(randomBytes(16))},a:${b64(k3)},Bad_Id:${b64(k1)}` });
    expect(problems).toEqual([
      expect.stringMatching(/^ {2}DATA_ENCRYPTION_KEYS: key "a" is one byte repeated/),
      expect.stringMatching(/DATA_ENCRYPTION_KEYS: key "b" must be exactly 32 bytes/),
      expect.stringMatching(/DATA_ENCRYPTION_KEYS: key id "a" appears more than once/),
      expect.stringMatching(/DATA_ENCRYPTION_KEYS: key id "Bad_Id" must match/),
    ]);
  });

  it('refuses 32 zero bytes as DATA_ENCRYPTION_KEY, no key at all, and both settings at once', () => {
    expect(problemsOf({ DATA_ENCRYPTION_KEY: b64(Buffer.alloc(32)) })).toEqual([expect.stringMatching(/DATA_ENCRYPTION_KEY: key "k0" is one byte repeated/)]);
    expect(problemsOf({})).toEqual([expect.stringMatching(/DATA_ENCRYPTION_KEY: DATA_ENCRYPTION_KEYS .* or DATA_ENCRYPTION_KEY is required/)]);
    expect(problemsOf({ DATA_ENCRYPTION_KEY: b64(k1), DATA_ENCRYPTION_KEYS: `k1:${b64(k1)}` })).toEqual([expect.stringMatching(/not both/)]);
    expect(problemsOf({ DATA_ENCRYPTION_KEYS: `k1${b64(k1)}` })).toEqual([
      expect.stringMatching(/entry 1 must be id:base64key/),
      expect.stringMatching(/no key given/),
    ]);
  });

  it('createKeyring refuses what the config refuses', () => {
    expect(() => createKeyring([{ id: 'k1', key: Buffer.alloc(32, 7) }])).toThrow(KeyringError);
    expect(parseKeys({ keys: `k1:${b64(k1)}` }).problems).toEqual([]);
  });
});

describe('sealing', () => {
  it('tags every new ciphertext with its key id: 0x01 ‖ len(id) ‖ id ‖ iv ‖ tag ‖ ct', () => {
    const keyring = createKeyring([{ id: 'k1', key: k1 }]);
    const sealed = keyring.seal('4111 1111 1111 1111');
    expect(sealed[0]).toBe(0x01);
    expect(sealed[1]).toBe(2);
    expect(sealed.subarray(2, 4).toString()).toBe('k1');
    expect(sealed.length).toBe(4 + 12 + 16 + Buffer.byteLength('4111 1111 1111 1111'));
    expect(sealed.toString('latin1')).not.toContain('4111');
    expect(keyring.open(sealed)).toBe('4111 1111 1111 1111');
    expect(keyring.sealedWith(sealed)).toBe('k1');
  });

  it('opens legacy untagged ciphertexts with whichever key of the keyring fits', () => {
    const legacy = Array.from({ length: 300 }, (_, i) => encrypt(k1, `secret-${i}`)); // some start with 0x01
    const keyring = createKeyring([
      { id: 'k0', key: k1 },
      { id: 'k2', key: k2 },
    ]);
    legacy.forEach((sealed, i) => expect(keyring.open(sealed)).toBe(`secret-${i}`));
    expect(keyring.sealedWith(legacy[0]!)).toBeUndefined();
    const other = createKeyring([{ id: 'k1', key: k1 }]);
    expect(other.open(legacy[1]!)).toBe('secret-1');
  });

  it('refuses altered ciphertexts and keys it does not hold, naming the key', () => {
    const sealed = createKeyring([{ id: 'k1', key: k1 }]).seal('whsec_x');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => createKeyring([{ id: 'k1', key: k1 }]).open(tampered)).toThrow(/no key in the keyring \(k1\) opens/);
    expect(() => createKeyring([{ id: 'k2', key: k2 }]).open(sealed)).toThrow(/sealed with key "k1", which is not in the keyring \(k2\)/);
  });

  it('rotates: sealed with k1, k2 added, the old value opens and new ones are sealed with k2', () => {
    const before = createKeyring([{ id: 'k1', key: k1 }]);
    const old = before.seal('whsec_old');
    const after = createKeyring([
      { id: 'k1', key: k1 },
      { id: 'k2', key: k2 },
    ]);
    expect(after.open(old)).toBe('whsec_old');
    expect(after.sealedWith(old)).toBe('k1');
    const fresh = after.seal('whsec_new');
    expect(after.sealedWith(fresh)).toBe('k2');
    expect(createKeyring([{ id: 'k2', key: k2 }]).open(fresh)).toBe('whsec_new');
    expect(() => before.open(fresh)).toThrow(/"k2", which is not in the keyring/);
  });

  it('derives HMAC keys from the newest key, so DATA_ENCRYPTION_KEY alone derives what it always did', () => {
    expect(
      createKeyring([{ id: 'k0', key: k1 }])
        .deriveKey('otp/v1')
        .export()
        .equals(deriveKey(k1, 'otp/v1')),
    ).toBe(true);
    const rotated = createKeyring([
      { id: 'k1', key: k1 },
      { id: 'k2', key: k2 },
    ]);
    expect(rotated.deriveKey('otp/v1').export().equals(deriveKey(k2, 'otp/v1'))).toBe(true);
  });

  it('derives each purpose once, newest first, and hands out a list its caller cannot disturb', () => {
    const rotated = createKeyring([
      { id: 'k1', key: k1 },
      { id: 'k2', key: k2 },
    ]);
    expect(rotated.deriveKey('csrf/v1')).toBe(rotated.deriveKey('csrf/v1'));
    const keys = rotated.deriveKeys('csrf/v1');
    expect(keys[0]).toBe(rotated.deriveKey('csrf/v1'));
    expect(keys.map((key) => key.export().equals(deriveKey(k1, 'csrf/v1')))).toEqual([false, true]);
    keys.reverse();
    expect(rotated.deriveKeys('csrf/v1')[0]).toBe(rotated.deriveKey('csrf/v1'));
    expect(rotated.deriveKey('otp/v1').equals(rotated.deriveKey('csrf/v1'))).toBe(false);
  });

  it('encrypts bytes under the newest key and decrypts them by key id', () => {
    const keyring = createKeyring([
      { id: 'k1', key: k1 },
      { id: 'k2', key: k2 },
    ]);
    const { keyId, data } = keyring.encryptBytes(Buffer.from('payload'));
    expect(keyId).toBe('k2');
    expect(keyring.decryptBytes(keyId, data).toString()).toBe('payload');
    expect(() => keyring.decryptBytes('k9', data)).toThrow(/"k9"/);
  });
});
