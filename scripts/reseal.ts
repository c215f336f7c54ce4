import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../core/config.js';
import { resealCards } from '../core/checkout/card-vault.js';
import { resealCartCustomers } from '../core/checkout/cart-ledger.js';
import { resealOutbox } from '../core/checkout/otp/outbox.js';
import { resealDashboardMail } from '../core/people/mail/outbox.js';
import { createDb } from '../core/db/client.js';
import { resealWebhookSecrets } from '../core/merchants/merchant-store.js';
import { resealEventCustomers } from '../core/webhooks/event-store.js';

/**
 * `npm run reseal`: re-seals every stored ciphertext (webhook secrets, card vault, OTP outbox, the
 * customers' contacts in the ledger and the event bodies) with the newest key of DATA_ENCRYPTION_KEYS,
 * through each table's owner. Kept capture and void answers also hold a sealed contact; they expire
 * within 24 hours, so keep an old key at least that long. Values already sealed with the
 * newest key are left alone, so it can run again (and after a crash) safely. Once it prints zeros,
 * the older keys may be dropped from DATA_ENCRYPTION_KEYS (workflow payloads sealed with them stay in
 * Temporal histories until those are deleted: keep an old key until its retention has passed).
 *
 * Connection: DATABASE_URL and DATA_ENCRYPTION_KEYS (or DATA_ENCRYPTION_KEY) from the environment;
 * when unset, those of the stack `npm start` runs (.data/stack.json, .data/local-secrets.json).
 */
const DATA_DIR = fileURLToPath(new URL('../.data/', import.meta.url));
const readJson = (file: string): Record<string, string> =>
  existsSync(DATA_DIR + file) ? (JSON.parse(readFileSync(DATA_DIR + file, 'utf8')) as Record<string, string>) : {};

const config = loadConfig({
  ...process.env,
  // The local npm start stack is sandbox; pointed elsewhere, CHECKOUT_ENV is taken as given.
  CHECKOUT_ENV: process.env.CHECKOUT_ENV ?? (process.env.DATABASE_URL ? undefined : 'sandbox'),
  DATABASE_URL: process.env.DATABASE_URL ?? readJson('stack.json').databaseUrl,
  ...(process.env.DATA_ENCRYPTION_KEYS ? {} : { DATA_ENCRYPTION_KEY: process.env.DATA_ENCRYPTION_KEY ?? readJson('local-secrets.json').dataEncryptionKey }),
});
const db = createDb(config.databaseUrl, { max: 1 });
try {
  const { keyring } = config;
  const resealed = {
    sealingKeyId: keyring.sealingKeyId,
    webhookSecrets: await resealWebhookSecrets(db, keyring),
    cardVault: await resealCards(db, keyring),
    otpOutbox: await resealOutbox(db, keyring),
    dashboardMail: await resealDashboardMail(db, keyring),
    orderCustomers: await resealCartCustomers(db, keyring),
    eventCustomers: await resealEventCustomers(db, keyring),
  };
  process.stdout.write(`${JSON.stringify(resealed)}\n`);
} finally {
  await db.end();
}
