import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';
import { temporalConnectionOptions } from '../../core/temporal.js';

const BASE = { DATABASE_URL: 'postgres://x', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (err instanceof ConfigError)
      return err.message
        .split('\n')
        .slice(1)
        .map((line) => line.trim());
    throw err;
  }
}

describe('configuration for a deployment', () => {
  it('has no default environment: a deployment that forgot CHECKOUT_ENV does not start as sandbox', () => {
    expect(problems(BASE)).toEqual(['CHECKOUT_ENV: is required: sandbox or production']);
    expect(loadConfig({ ...BASE, CHECKOUT_ENV: 'production' }).environment).toBe('production');
  });

  it('stops an entry point with one line per problem and no stack trace', () => {
    const env = { PATH: process.env.PATH ?? '', ...BASE };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'worker/main.ts'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(['Invalid configuration:', '  CHECKOUT_ENV: is required: sandbox or production']);
  });

  it('connects to Temporal in clear by default, and with TLS, mTLS and an API key when told', () => {
    const plain = loadConfig({ ...BASE, CHECKOUT_ENV: 'sandbox' });
    expect(temporalConnectionOptions(plain)).toEqual({ address: 'localhost:7233' });

    const dir = mkdtempSync(path.join(tmpdir(), 'temporal-tls-'));
    for (const file of ['client.pem', 'client.key', 'ca.pem']) writeFileSync(path.join(dir, file), `-----${file}-----`);
    const mtls = loadConfig({
      ...BASE,
      CHECKOUT_ENV: 'production',
      TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
      TEMPORAL_TLS_CERT_PATH: path.join(dir, 'client.pem'),
      TEMPORAL_TLS_KEY_PATH: path.join(dir, 'client.key'),
      TEMPORAL_TLS_CA_PATH: path.join(dir, 'ca.pem'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    const options = temporalConnectionOptions(mtls);
    expect(options.tls?.serverNameOverride).toBe('temporal.internal');
    expect(Buffer.from(options.tls!.clientCertPair!.crt).toString()).toBe('-----client.pem-----');
    expect(Buffer.from(options.tls!.clientCertPair!.key).toString()).toBe('-----client.key-----');
    expect(Buffer.from(options.tls!.serverRootCACertificate!).toString()).toBe('-----ca.pem-----');

    expect(temporalConnectionOptions(loadConfig({ ...BASE, CHECKOUT_ENV: 'production', TEMPORAL_API_KEY: 'key-123' }))).toEqual({
      address: 'localhost:7233',
      apiKey: 'key-123',
      tls: {},
    });
    expect(problems({ ...BASE, CHECKOUT_ENV: 'production', TEMPORAL_TLS_CERT_PATH: '/x.pem' })).toEqual([
      'TEMPORAL_TLS_CERT_PATH: and TEMPORAL_TLS_KEY_PATH go together (mTLS needs both)',
    ]);
    const missing = loadConfig({ ...BASE, CHECKOUT_ENV: 'production', TEMPORAL_TLS_CA_PATH: path.join(dir, 'nope.pem') });
    expect(() => temporalConnectionOptions(missing)).toThrow(/cannot read TEMPORAL_TLS_CA_PATH at .*nope\.pem/);
  });
});
