import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { Keyring } from '../../core/crypto.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { savedCardsOf } from '../../core/checkout/saved-cards.js';
import { readOutboxReminders } from '../../core/checkout/otp/outbox.js';
import { getOrder } from '../../core/orders/orders.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { decodePayload, payloadFromJson, payloadToJson, type JsonPayload } from '../../core/temporal/codec.js';
import { useTestStack } from '../support/test-stack.js';
import { cartSessionDriver, type Session } from '../support/cart-session-driver.js';

const PAN = '4111111111111111';
const PAN_WITH_SPACES = '4111 1111 1111 1111';
const CVV = '123';

/**
 * The history as JSON with every payload decrypted (as the codec endpoint does for an operator) and
 * decoded (protobuf's JSON form carries payload bytes as base64), so the scan reads what Temporal
 * stores, as anyone holding the data key would read it.
 */
function historyText(history: object, keyring: Keyring): string {
  const decode = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(decode);
    if (!value || typeof value !== 'object') return value;
    const node = 'metadata' in value && 'data' in value ? payloadToJson(decodePayload(keyring, payloadFromJson(value as JsonPayload))) : value;
    const entries = Object.entries(node).map(([key, value]) => {
      if (key !== 'data' || typeof value !== 'string' || !('metadata' in node)) return [key, decode(value)];
      const text = Buffer.from(value, 'base64').toString('utf8');
      try {
        return [key, JSON.parse(text) as unknown];
      } catch {
        return [key, text];
      }
    });
    return Object.fromEntries(entries);
  };
  return JSON.stringify(decode(JSON.parse(JSON.stringify(history))));
}

/** Every way a secret of this session could show up in JSON text. */
function leaks(text: string, otp: string): string[] {
  const found: string[] = [];
  if (new RegExp(`(?<!\\d)${PAN}(?!\\d)`).test(text)) found.push('PAN');
  if (text.includes(PAN_WITH_SPACES)) found.push('PAN with spaces');
  if (/"(cvv|cvc|cvv2|securityCode)"\s*:/i.test(text)) found.push('a CVV field');
  // A typed CVV is a string: a bare number 123 (a latency, a count) is not one.
  if (new RegExp(`:\\s*"${CVV}"\\s*[,}\\]]`).test(text)) found.push('the CVV as a value');
  if (new RegExp(`(?<!\\d)${otp}(?!\\d)`).test(text)) found.push('the OTP');
  return found;
}

describe('no card number, CVV, one-time code, code hash, contact or secret in history, database or logs after a payment or a reminder', () => {
  const logLines: string[] = [];
  const stack = useTestStack(
    { LOG_LEVEL: 'trace', PAYMENT_RESOLUTION_SECONDS: '2' },
    { logDestination: { write: (line: string) => void logLines.push(line) } },
  );
  let driver: ReturnType<typeof cartSessionDriver>;
  let merchant: CreatedMerchant;
  beforeAll(async () => {
    merchant = await stack.createMerchant();
    driver = cartSessionDriver(stack, merchant.platformUuid);
  });

  /** Contact → the real code from the outbox (not the sandbox OTP) → card → outcome. */
  async function payWithRealCode(number: string): Promise<{ session: Session; otp: string }> {
    const session = await driver.createSession();
    await driver.sendCode(session, '+33 6 12 34 56 78');
    const otp = await driver.sentCode(session);
    await driver.verify(session, otp);
    await driver.pay(session, number, '12/30', CVV);
    await session.handle.result();
    return { session, otp };
  }

  /**
   * As payWithRealCode, with the contact's key the page sends: the card saved on consent, then paid
   * with by its id in a second session of the same contact (docs/saved-cards.md).
   */
  async function saveThenPayWithSaved(): Promise<{ saving: { session: Session; otp: string }; saved: { session: Session; otp: string } }> {
    const cardKey = savedCardContactKey(stack.config.keyring, '+33612345678');
    const saving = await driver.createSession();
    await driver.sendCode(saving, '+33 6 12 34 56 78', { cardKey });
    const savingOtp = await driver.sentCode(saving);
    await driver.verify(saving, savingOtp);
    const card = await driver.vaultCard(saving, PAN_WITH_SPACES, '12/30', CVV);
    expect((await driver.payWith(saving, { ...card, save: true })).status).toBe('paid');
    const [kept] = await savedCardsOf(stack.db, cardKey, 'sandbox');
    expect(kept).toMatchObject({ brand: 'visa', last4: '1111' });

    const saved = await driver.createSession();
    await driver.sendCode(saved, '+33 6 12 34 56 78', { cardKey });
    const savedOtp = await driver.sentCode(saved);
    await driver.verify(saved, savedOtp);
    const paid = await driver.payWith(saved, { savedCardId: kept!.id, brand: kept!.brand, last4: kept!.last4 });
    expect(paid).toMatchObject({ status: 'paid', payment: { last4: '1111', savedCard: true } });
    return { saving: { session: saving, otp: savingOtp }, saved: { session: saved, otp: savedOtp } };
  }

  /** Contact (the reminder asked for) → the real code → abandoned → the abandoned-cart reminder, a second after. */
  async function remindedAfterRealCode(): Promise<{ session: Session; otp: string }> {
    const shortLived = cartSessionDriver({ ...stack, config: { ...stack.config, sessionLifetimeMs: 10_000 } }, merchant.platformUuid);
    const session = await shortLived.startSessionWithOtpPolicy({}, { recovery: { enabled: true }, recoveryReminderMs: 1_000 });
    await shortLived.sendCode(session, '+33 6 12 34 56 78', { remind: true });
    const otp = await shortLived.sentCode(session);
    await shortLived.verify(session, otp);
    expect(await session.handle.result()).toEqual({ status: 'abandoned' });
    return { session, otp };
  }

  it('scans everything after a paid, a processor-error, a reminded, a card-saving and a saved-card session and finds nothing', async () => {
    const paid = await payWithRealCode(PAN_WITH_SPACES);
    const retried = await payWithRealCode(SANDBOX_CARDS.processorError);
    const reminded = await remindedAfterRealCode();
    expect(await readOutboxReminders(stack.db, stack.config.keyring, reminded.session.cartId)).toMatchObject([{ address: '+33612345678' }]);
    const { saving, saved } = await saveThenPayWithSaved();

    const tables = await stack.db<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
    const dbRows: string[] = [];
    for (const { table_name } of tables) {
      const rows = await stack.db.unsafe<{ row: string }[]>(`select row_to_json(t)::text as row from "${table_name}" t`);
      dbRows.push(...rows.map((r) => r.row));
    }
    const database = dbRows.join('\n');
    // Other test files share this database, and their rows hold values of their own; a CVV or a code
    // from this session would sit in a row of this session, so values are looked for there. The
    // card number and CVV fields are looked for everywhere.
    const VALUE_LEAKS = new Set(['the CVV as a value', 'the OTP']);
    const databaseLeaks = (cartId: string, otp: string) => [
      ...leaks(database, otp).filter((leak) => !VALUE_LEAKS.has(leak)),
      ...leaks(dbRows.filter((row) => row.includes(cartId)).join('\n'), otp).filter((leak) => VALUE_LEAKS.has(leak)),
    ];
    const logs = logLines.join('');

    for (const { session, otp } of [paid, retried, saving, saved]) {
      const history = historyText(await session.handle.fetchHistory(), stack.config.keyring);
      // The scans read real content: the session's own traces are there, decoded.
      expect(history).toContain(`"cartId":"${session.cartId}"`);
      expect(history).toMatch(/"last4":"(1111|0119)"/);
      expect(database).toContain(session.cartId);
      expect(logs).toContain(session.cartId);

      expect({ history: leaks(history, otp), database: databaseLeaks(session.cartId, otp), logs: leaks(logs, otp) }).toEqual({
        history: [],
        database: [],
        logs: [],
      });
    }

    const remindedHistory = historyText(await reminded.session.handle.fetchHistory(), stack.config.keyring);
    expect(remindedHistory).toContain('sendRecoveryReminder');
    expect({ history: leaks(remindedHistory, reminded.otp), logs: leaks(logs, reminded.otp) }).toEqual({ history: [], logs: [] });

    // Beyond card data and codes: the customer's contact, the code hashes and the merchant's webhook
    // secret appear in no table and no log line, in any of the forms they travel in.
    for (const { session, otp } of [paid, retried, reminded, saving, saved]) {
      const ours = dbRows.filter((row) => row.includes(session.cartId)).join('\n');
      const codeHashes = [otp, stack.config.sandboxOtp].map((code) => otpHash(stack.config.keyring, session.cartId, code));
      for (const secret of ['+33612345678', '+33 6 12 34 56 78', ...codeHashes, merchant.webhookSecret, merchant.webhookSecret.slice('whsec_'.length)]) {
        expect(ours.includes(secret), `${secret} in a table`).toBe(false);
        expect(logs.includes(secret), `${secret} in the logs`).toBe(false);
      }
    }
    // The saved card's rows hold the processor's reference, brand, last 4 and the contact's keyed
    // digest: never the contact in any form, nor the number (the scan above looked at every table).
    const savedRows = [
      ...(await stack.db<{ row: string }[]>`select row_to_json(t)::text as row from saved_cards t`),
      ...(await stack.db<{ row: string }[]>`select row_to_json(t)::text as row from sandbox_payment_methods t`),
    ].map((r) => r.row);
    expect(savedRows.join('\n')).toContain(savedCardContactKey(stack.config.keyring, '+33612345678'));
    for (const contact of ['+33612345678', '+33 6 12 34 56 78', '612345678'])
      expect(savedRows.join('\n').includes(contact), `${contact} in a saved card`).toBe(false);
    expect(leaks(savedRows.join('\n'), saved.otp)).toEqual([]);

    // The contact is there, sealed: the merchant's own read of the order opens it.
    const owner = { platformUuid: merchant.platformUuid, environment: stack.config.environment };
    expect((await getOrder(stack.db, stack.config, owner, paid.session.cartId))?.customer).toEqual({ phone: '+33612345678' });
    expect(logs).toContain('payment authorization');
    expect(logs).toContain('payment processor unavailable');
    expect(logs).toContain('one-time code written to the sandbox outbox');
    expect(logs).toContain('recovery reminder written to the sandbox outbox');
  });

  it('the scan itself spots a leak when there is one', () => {
    expect(leaks(JSON.stringify({ card: { pan: PAN, cvv: CVV } }), '654321')).toEqual(['PAN', 'a CVV field', 'the CVV as a value']);
    expect(leaks(JSON.stringify({ card: { code: CVV }, latencyMs: Number(CVV) }), '654321')).toEqual(['the CVV as a value']);
    expect(leaks(`{"msg":"code 654321 for ${PAN_WITH_SPACES}"}`, '654321')).toEqual(['PAN with spaces', 'the OTP']);
  });
});
