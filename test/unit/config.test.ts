import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';
import { temporalConnectionOptions } from '../../core/temporal/connection.js';
import { PRODUCTION_SETTINGS } from '../support/production-settings.js';

const BASE = { DATABASE_URL: 'postgres://x', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
/** A complete production configuration: each test takes something away or changes it. */
const PRODUCTION = { ...BASE, ...PRODUCTION_SETTINGS };

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
    expect(loadConfig(PRODUCTION).environment).toBe('production');
  });

  it('connects to Temporal in clear by default, and with TLS, mTLS and an API key when told', () => {
    const plain = loadConfig({ ...BASE, CHECKOUT_ENV: 'sandbox' });
    expect(temporalConnectionOptions(plain)).toEqual({ address: 'localhost:7233' });

    const dir = mkdtempSync(path.join(tmpdir(), 'temporal-tls-'));
    for (const file of ['client.pem', 'client.key', 'ca.pem']) writeFileSync(path.join(dir, file), `-----${file}-----`);
    const mtls = loadConfig({
      ...PRODUCTION,
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

    expect(temporalConnectionOptions(loadConfig({ ...PRODUCTION, TEMPORAL_API_KEY: 'key-123' }))).toEqual({
      address: 'localhost:7233',
      apiKey: 'key-123',
      tls: {},
    });
    expect(problems({ ...PRODUCTION, TEMPORAL_TLS_CERT_PATH: '/x.pem' })).toEqual([
      'TEMPORAL_TLS_CERT_PATH: and TEMPORAL_TLS_KEY_PATH go together (mTLS needs both)',
    ]);
    const missing = loadConfig({ ...PRODUCTION, TEMPORAL_TLS_CA_PATH: path.join(dir, 'nope.pem') });
    expect(() => temporalConnectionOptions(missing)).toThrow(/cannot read TEMPORAL_TLS_CA_PATH at .*nope\.pem/);
  });
});

describe('the production profile', () => {
  it('starts with real adapters: Stripe at its own https address, SMTP and Twilio for codes', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.payments).toEqual({ processor: 'stripe', stripe: { secretKey: 'sk_test_productionprofile', apiBase: 'https://api.stripe.com' } });
    expect(config.otpDelivery.email).toBeDefined();
    expect(config.otpDelivery.sms).toBeDefined();
    expect([config.apiBaseUrl, config.checkoutBaseUrl]).toEqual(['https://api.checkout.test', 'https://pay.checkout.test']);
    // The Temporal UI origins are the deployment's own: no localhost default.
    expect(config.temporalUiOrigins).toEqual(['https://temporal.checkout.test']);
    expect(loadConfig({ ...BASE, CHECKOUT_ENV: 'sandbox' }).temporalUiOrigins).toEqual(['http://localhost:8233', 'http://127.0.0.1:8233']);
  });

  it('refuses to start with nothing but CHECKOUT_ENV, naming each missing setting on its own line', () => {
    expect(problems({ CHECKOUT_ENV: 'production', DATABASE_URL: 'postgres://x' })).toEqual([
      'PAYMENT_PROCESSOR: is required in production: stripe (the sandbox simulator never charges a real card)',
      'STRIPE_SECRET_KEY: is required in production (the Stripe secret key, sk_live_…)',
      'SMTP_URL: is required in production (one-time codes by email: smtp://user:pass@host:587 or smtps://…:465)',
      'OTP_EMAIL_FROM: is required in production (the From of code emails, e.g. "Checkout <codes@pay.example>")',
      'TWILIO_ACCOUNT_SID: is required in production (one-time codes by SMS: the Twilio account SID, AC…)',
      "TWILIO_AUTH_TOKEN: is required in production (one-time codes by SMS: the Twilio account's auth token)",
      'TWILIO_FROM: is required in production (one-time codes by SMS: the sending number or Messaging Service SID)',
      'API_BASE_URL: is required in production: the public https address customers and merchants use',
      'CHECKOUT_BASE_URL: is required in production: the public https address customers and merchants use',
      'OPERATOR_TOKEN: is required in production (the bearer token of /operator and /codec: openssl rand -hex 24)',
      'METRICS_TOKEN: is required in production (the scrape token of every /metrics: openssl rand -hex 24)',
      'TEMPORAL_UI_ORIGINS: is required in production (the origins of your Temporal UI allowed to call /codec, e.g. https://temporal.pay.example)',
      "DATA_ENCRYPTION_KEYS: is required in production (this deployment's own keys: k1:$(openssl rand -base64 32))",
    ]);
  });

  it('refuses the sandbox simulator and http addresses, for the service and for Stripe and Twilio', () => {
    expect(
      problems({
        ...PRODUCTION,
        PAYMENT_PROCESSOR: 'sandbox',
        API_BASE_URL: 'http://api.checkout.test',
        CHECKOUT_BASE_URL: 'http://pay.checkout.test',
        STRIPE_API_BASE: 'http://127.0.0.1:12111',
        TWILIO_API_URL: 'http://127.0.0.1:8080',
      }),
    ).toEqual([
      'PAYMENT_PROCESSOR: must be stripe (the sandbox simulator never charges a real card)',
      'STRIPE_API_BASE: must be https in production (the secret key travels with every request)',
      'TWILIO_API_URL: must be https in production (the auth token travels with every request)',
      'API_BASE_URL: must be https in production (it is http)',
      'CHECKOUT_BASE_URL: must be https in production (it is http)',
    ]);
  });

  it('names the one missing half of the code senders rather than saying they go together', () => {
    const { OTP_EMAIL_FROM: _from, TWILIO_FROM: _twilio, ...withoutSenders } = PRODUCTION;
    expect(problems(withoutSenders)).toEqual([
      'OTP_EMAIL_FROM: is required in production (the From of code emails, e.g. "Checkout <codes@pay.example>")',
      'TWILIO_FROM: is required in production (one-time codes by SMS: the sending number or Messaging Service SID)',
    ]);
  });

  it('lets sandbox use Stripe (its test mode, or stripe-mock over http) when given a key', () => {
    const sandbox = { ...BASE, CHECKOUT_ENV: 'sandbox' };
    expect(loadConfig(sandbox).payments).toEqual({ processor: 'sandbox' });
    expect(problems({ ...sandbox, PAYMENT_PROCESSOR: 'stripe' })).toEqual(['STRIPE_SECRET_KEY: is required with PAYMENT_PROCESSOR=stripe']);
    expect(
      loadConfig({ ...sandbox, PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_API_BASE: 'http://127.0.0.1:12111/' }).payments,
    ).toEqual({
      processor: 'stripe',
      stripe: { secretKey: 'sk_test_abc', apiBase: 'http://127.0.0.1:12111' },
    });
    expect(problems({ ...sandbox, STRIPE_SECRET_KEY: 'pk_live_abc' })).toEqual([
      'STRIPE_SECRET_KEY: must be a Stripe secret key (sk_live_… or sk_test_…) or restricted key (rk_…)',
    ]);
  });
});

describe('WEBHOOK_ALLOW_LOOPBACK: webhooks to this machine, for local development only', () => {
  const sandbox = { ...BASE, CHECKOUT_ENV: 'sandbox' };

  it('is off unless set, so a deployed sandbox reaches no loopback service', () => {
    expect(loadConfig(sandbox).webhooks.allowLoopback).toBe(false);
    expect(loadConfig({ ...sandbox, WEBHOOK_ALLOW_LOOPBACK: 'false' }).webhooks.allowLoopback).toBe(false);
    expect(loadConfig({ ...sandbox, WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhooks.allowLoopback).toBe(true);
    expect(problems({ ...sandbox, WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toEqual(['WEBHOOK_ALLOW_LOOPBACK: must be true or false']);
  });

  it('is refused in production with a line that says why, whatever else is right', () => {
    expect(loadConfig(PRODUCTION).webhooks.allowLoopback).toBe(false);
    expect(problems({ ...PRODUCTION, WEBHOOK_ALLOW_LOOPBACK: 'true' })).toEqual([
      "WEBHOOK_ALLOW_LOOPBACK: cannot be true in production (production webhooks reach the public internet only, never this machine's loopback)",
    ]);
  });
});

describe('ADMISSION_*: create-cart shedding under overload', () => {
  const SANDBOX = { ...BASE, CHECKOUT_ENV: 'sandbox' };

  it('sheds by default, with the thresholds docs/decisions/admission.md chose', () => {
    expect(loadConfig(SANDBOX).admission).toEqual({ shedding: true, shedAboveLagMs: 200, admitBelowLagMs: 50, retryAfterSeconds: 2 });
    expect(loadConfig({ ...SANDBOX, ADMISSION_SHEDDING: 'off' }).admission.shedding).toBe(false);
  });

  it('refuses to start with no gap between the thresholds, which would let shedding flap', () => {
    expect(problems({ ...SANDBOX, ADMISSION_ADMIT_BELOW_LAG_MS: '200' })).toEqual([
      'ADMISSION_ADMIT_BELOW_LAG_MS: must be below ADMISSION_SHED_ABOVE_LAG_MS (200): the gap between the two keeps shedding from flapping',
    ]);
    expect(problems({ ...SANDBOX, ADMISSION_SHEDDING: 'yes' })).toEqual(['ADMISSION_SHEDDING: must be on or off']);
  });
});
