import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../worker/activities.js';
import { createOtpActivities } from '../../activities/cart-session/otp.js';
import { createActivityMetrics } from '../../activities/metrics.js';
import { loadConfig } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { createLogger } from '../../core/logger.js';
import type { CustomerMessage, ReminderMessage } from '../../core/checkout/otp/sender.js';
import { messageText } from '../../core/checkout/otp/delivery/message.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { parseContact } from '../../core/checkout/contact.js';
import { readContact } from '../../core/checkout/contact-input.js';
import { createOutboxOtpSender } from '../../core/checkout/otp/outbox.js';
import { answeringProcessor } from '../support/payment-processors.js';
import { PRODUCTION_SETTINGS } from '../support/production-settings.js';
import { paymentProcessorFromConfig } from '../../core/checkout/payment-processors/from-config.js';
import { otpSenderFromConfig } from '../../core/checkout/otp/delivery/from-config.js';

const KEY = randomBytes(32).toString('base64');
const configFor = (CHECKOUT_ENV: 'sandbox' | 'production') =>
  loadConfig({ ...(CHECKOUT_ENV === 'production' ? PRODUCTION_SETTINGS : {}), CHECKOUT_ENV, DATABASE_URL: 'postgres://unused', DATA_ENCRYPTION_KEY: KEY });
/** Never queried: these tests only build activities, or use a sender that does not touch the database. */
const unusedDb = (() => {
  throw new Error('no database in unit tests');
}) as unknown as Db;
const logger = createLogger({ level: 'silent', name: 'test' });

describe('parseContact', () => {
  it.each([
    ['Jane.Doe@Example.com', { channel: 'email', address: 'jane.doe@example.com', hint: 'j***@example.com' }],
    ['+33 6 12 34 56 78', { channel: 'sms', address: '+33612345678', hint: '•••• 5678' }],
    ['0049 (151) 123-456.78', { channel: 'sms', address: '+4915112345678', hint: '•••• 5678' }],
  ])('accepts %s', (raw, parsed) => {
    expect(parseContact(raw)).toEqual(parsed);
  });

  it.each([
    '',
    'jane',
    'jane@',
    '@example.com',
    'jane@example',
    'a b@example.com',
    '0612345678',
    '+0612345678',
    '+1234567',
    '+1234567890123456',
    `${'a'.repeat(65)}@example.com`,
    // What mail software reads as another recipient than the one counted.
    'x<victim@example.com>',
    'Jane <jane@example.com>',
    '"a b"@x.com',
    '"victim@example.com"@x.com',
    'a@x.com, b@y.com',
    'a@x.com;b@y.com',
    '(c)a@x.com',
    'a@x.com(c)',
    'group: a@x.com;',
    'jane@bücher.example',
    'jane..doe@example.com',
    'jane@-example.com',
  ])('refuses %j', (raw) => {
    expect(parseContact(raw)).toBeUndefined();
  });
});

describe('readContact', () => {
  it.each([
    ['Jane.Doe@Example.com', undefined, 'jane.doe@example.com', 'jane.doe@example.com'],
    ['jane+shop@Example.com', undefined, 'jane+shop@example.com', 'jane@example.com'],
    ['jane@Bücher.Example', undefined, 'jane@xn--bcher-kva.example', 'jane@xn--bcher-kva.example'],
    ['+33 6 12 34 56 78', 'DE', '+33612345678', '+33612345678'],
    ['06 12 34 56 78', 'FR', '+33612345678', '+33612345678'],
    ['06 12 34 56 78', 'FRA', '+33612345678', '+33612345678'],
    ['0049 (151) 123-456.78', 'US', '+4915112345678', '+4915112345678'],
    ['(415) 555-2671', 'US', '+14155552671', '+14155552671'],
  ])('reads %j (cart country %s) as %s, counted as %s', (raw, country, address, destination) => {
    expect(readContact(raw, country)).toMatchObject({ contact: { address }, destination });
  });

  it.each([
    ['x<victim@example.com>', 'FR'],
    ['"a b"@x.com', 'FR'],
    ['a@x.com, b@y.com', 'FR'],
    ['(c)a@x.com', 'FR'],
    ['jane@exa mple.com', 'FR'],
    ['jane@', 'FR'],
    // A national number without a cart country to read it in, and numbers no region issues.
    ['06 12 34 56 78', undefined],
    ['+33 1', 'FR'],
    ['+1234567', undefined],
    ['+999 123 456 789', undefined],
    ['call +1 555 0100', 'US'],
  ])('refuses %j (cart country %s)', (raw, country) => {
    expect(readContact(raw, country)).toBeUndefined();
  });
});

describe('sendOtp activity', () => {
  const merchantNameOf = (cartId: string) => Promise.resolve(`Registered Ltd (${cartId})`);
  const sent: CustomerMessage[] = [];
  const MESSAGE = { codeLifetimeMs: 600_000 };
  const otpSender = {
    name: 'recording',
    send: (m: CustomerMessage) => {
      sent.push(m);
      return Promise.resolve();
    },
  };

  it('sends a fresh 6-digit code and returns only the digest of its keyed hash (and, in sandbox, that of SANDBOX_OTP)', async () => {
    const config = configFor('sandbox');
    const { sendOtp } = createOtpActivities({ config, otpSender, metrics: createActivityMetrics(), merchantNameOf });
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const result = await sendOtp({ cartId: 'cart-1', contact: 'jane@example.com', ...MESSAGE });
      const message = sent.at(-1)!;
      if (message.kind !== 'code') throw new Error(`a ${message.kind} message where a code was sent`);
      expect(message).toMatchObject({ cartId: 'cart-1', channel: 'email', address: 'jane@example.com', addressHint: 'j***@example.com' });
      expect(message.code).toMatch(/^\d{6}$/);
      codes.add(message.code);
      const codeHash = otpHash(config.keyring, 'cart-1', message.code);
      expect(result).toEqual({
        acceptedDigests: [otpHashDigest(codeHash), otpHashDigest(otpHash(config.keyring, 'cart-1', config.sandboxOtp))],
      });
      // Nothing in the result passes the check: not the code, not the hash the page would send.
      expect(JSON.stringify(result)).not.toContain(message.code);
      expect(JSON.stringify(result)).not.toContain(codeHash);
    }
    expect(codes.size).toBeGreaterThan(15);
  });

  it('counts each send by channel and result, a failed one included', async () => {
    const metrics = createActivityMetrics();
    await createOtpActivities({ config: configFor('sandbox'), otpSender, metrics, merchantNameOf }).sendOtp({
      cartId: 'cart-4',
      contact: '+33612345678',
      ...MESSAGE,
    });
    const failing = { name: 'down', send: () => Promise.reject(new Error('provider down')) };
    const { sendOtp } = createOtpActivities({ config: configFor('sandbox'), otpSender: failing, metrics, merchantNameOf });
    await expect(sendOtp({ cartId: 'cart-4', contact: 'jane@example.com', ...MESSAGE })).rejects.toThrow('provider down');
    const counted = (await metrics.otpSends.get()).values.map((v) => [v.labels, v.value]);
    expect(counted).toEqual([
      [{ channel: 'sms', result: 'sent' }, 1],
      [{ channel: 'email', result: 'failed' }, 1],
    ]);
  });

  it('gives no sandbox digest in production', async () => {
    const { sendOtp } = createOtpActivities({ config: configFor('production'), otpSender, metrics: createActivityMetrics(), merchantNameOf });
    expect((await sendOtp({ cartId: 'cart-2', contact: '+33612345678', ...MESSAGE })).acceptedDigests).toHaveLength(1);
  });

  it('names the merchant its cart row records, never the store name of the request', async () => {
    const { sendOtp } = createOtpActivities({ config: configFor('sandbox'), otpSender, metrics: createActivityMetrics(), merchantNameOf });
    await sendOtp({ cartId: 'cart-5', contact: 'jane@example.com', ...MESSAGE });
    expect(sent.at(-1)).toMatchObject({ cartId: 'cart-5', merchantName: 'Registered Ltd (cart-5)' });
  });

  it('sends nothing for a cart without a ledger row to name its merchant', async () => {
    const before = sent.length;
    const { sendOtp } = createOtpActivities({
      config: configFor('sandbox'),
      otpSender,
      metrics: createActivityMetrics(),
      merchantNameOf: () => Promise.resolve(undefined),
    });
    await expect(sendOtp({ cartId: 'cart-6', contact: 'jane@example.com', ...MESSAGE })).rejects.toThrow(/no ledger row/);
    expect(sent).toHaveLength(before);
  });

  it('refuses a contact the workflow should not have let through', async () => {
    const { sendOtp } = createOtpActivities({ config: configFor('sandbox'), otpSender, metrics: createActivityMetrics(), merchantNameOf });
    await expect(sendOtp({ cartId: 'cart-3', contact: 'nobody', ...MESSAGE })).rejects.toThrow(/not an email address or phone number/);
  });
});

describe('production wiring', () => {
  it('the outbox sender refuses production', () => {
    expect(() => createOutboxOtpSender({ environment: 'production', db: unusedDb, keyring: configFor('sandbox').keyring, logger })).toThrow(/sandbox only/);
  });

  it('a production worker without real code delivery or a PaymentProcessor fails to build its activities, naming the settings', () => {
    // loadConfig refuses such a production configuration; this is the second line, for a Config built some other way.
    const config = { ...configFor('sandbox'), environment: 'production' as const };
    expect(() => createActivities({ config, db: unusedDb, logger, metrics: createActivityMetrics() })).toThrow(
      'Production sends one-time codes for real: set SMTP_URL and OTP_EMAIL_FROM (email) and TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM (SMS).',
    );
    const otpSender = { name: 'real', send: async () => {} };
    expect(() => createActivities({ config, db: unusedDb, logger, otpSender, metrics: createActivityMetrics() })).toThrow(/real PaymentProcessor/);
    const paymentProcessor = answeringProcessor('real', () => Promise.resolve({ outcome: 'approved', chargeId: 'a' }));
    expect(createActivities({ config, db: unusedDb, logger, otpSender, paymentProcessor, metrics: createActivityMetrics() })).toHaveProperty('sendOtp');
  });

  it('a complete production configuration builds its activities with Stripe, SMTP and Twilio, nothing injected', () => {
    expect(createActivities({ config: configFor('production'), db: unusedDb, logger, metrics: createActivityMetrics() })).toHaveProperty('chargePayment');
    expect(paymentProcessorFromConfig(configFor('production')).name).toBe('stripe');
    expect(otpSenderFromConfig({ config: configFor('production'), db: unusedDb, logger }).name).toBe('smtp+twilio');
  });

  it('sandbox builds with the outbox sender and the simulator', () => {
    expect(createActivities({ config: configFor('sandbox'), db: unusedDb, logger, metrics: createActivityMetrics() })).toHaveProperty('chargePayment');
  });
});

describe('the abandoned-cart reminder’s text', () => {
  const reminder: ReminderMessage = {
    kind: 'reminder',
    cartId: 'c',
    channel: 'email',
    address: 'jane.doe@example.com',
    addressHint: 'j***@example.com',
    merchantName: 'A & B <Shop>',
    recoveryUrl: 'https://pay.example/r/AbCdEfGhIjKlMnOpQrStUv',
  };

  it.each(['en', 'fr', 'de', 'es', 'ar'])('says the registered name and the link in %s, no contact, the name escaped in HTML', (locale) => {
    const texts = messageText({ ...reminder, locale });
    for (const text of [texts.subject, texts.text, texts.html, texts.sms]) {
      expect(text).not.toContain('jane.doe');
      expect(text).not.toContain('j***@example.com');
    }
    for (const text of [texts.text, texts.sms]) expect(text).toContain(reminder.recoveryUrl);
    expect(texts.html).toContain(`href="${reminder.recoveryUrl}"`);
    expect(texts.subject).toContain('A & B <Shop>');
    expect(texts.sms).toContain('A & B <Shop>');
    expect(texts.html).toContain('A &#38; B &#60;Shop&#62;');
    expect(texts.html).not.toContain('<Shop>');
    expect(texts.html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
  });

  it('speaks English for a language without a catalogue, and differs from the code message', () => {
    expect(messageText({ ...reminder, locale: 'xx' }).subject).toBe('Your A & B <Shop> order is waiting for you');
    const { recoveryUrl: _link, ...to } = reminder;
    expect(messageText({ ...to, kind: 'code', code: '123456', codeLifetimeMs: 600_000 }).subject).toBe('123456 is your A & B <Shop> checkout code');
  });
});
