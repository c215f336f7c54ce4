import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

const BASE = { DATABASE_URL: 'postgres://x', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') };

/**
 * The worker's entry point run as a process, as a deployment starts it: what it prints and its exit
 * code when its configuration is wrong. It loads the whole worker (the Temporal SDK, the bundler)
 * before reading its settings, seconds a run, so it lives here rather than with the in-process
 * checks of core/config.ts in test/unit/config.test.ts.
 */
describe('the worker started with a wrong configuration', () => {
  const runWorker = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'worker/main.ts'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });

  it('stops with one line per problem and no stack trace', () => {
    const run = runWorker(BASE);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(['Invalid configuration:', '  CHECKOUT_ENV: is required: sandbox or production']);
  });

  it('stops in production without its settings, one line each', () => {
    const run = runWorker({ CHECKOUT_ENV: 'production', DATABASE_URL: 'postgres://x' });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines.slice(1).map((line) => line.trim().split(':')[0])).toEqual([
      'PAYMENT_PROCESSOR',
      'STRIPE_SECRET_KEY',
      'SMTP_URL',
      'OTP_EMAIL_FROM',
      'TWILIO_ACCOUNT_SID',
      'TWILIO_AUTH_TOKEN',
      'TWILIO_FROM',
      'API_BASE_URL',
      'CHECKOUT_BASE_URL',
      'OPERATOR_TOKEN',
      'METRICS_TOKEN',
      'TEMPORAL_UI_ORIGINS',
      'DATA_ENCRYPTION_KEYS',
    ]);
  });
});
