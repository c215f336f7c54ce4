import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTP_SEND_FAILED } from '../../core/checkout/session.js';
import { cartSessionDriver, refusalOf } from '../support/cart-session-driver.js';
import { findLeaks, findLeaksInDatabase } from '../support/leak-scan.js';
import { startSmtpCatcher } from '../support/otp-providers.js';
import { useTestStack } from '../support/test-stack.js';

const { History } = temporal.api.history.v1;
const REJECTED = 'reject.me@example.com';
const TOKEN = 'test-operator-token-0123456789';

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}
interface JsonFailure {
  message?: string;
  stackTrace?: string;
  encodedAttributes?: JsonPayload;
  cause?: JsonFailure;
}

// Started before the stack, whose configuration holds its address.
const smtp = await startSmtpCatcher({ reject: [REJECTED] });

describe('a rejected SMTP recipient leaves no contact in raw history (failures included), rows or logs', () => {
  const logLines: string[] = [];
  const stack = useTestStack(
    { LOG_LEVEL: 'trace', SMTP_URL: smtp.url, OTP_EMAIL_FROM: 'Checkout <codes@pay.example>' },
    { logDestination: { write: (line: string) => void logLines.push(line) } },
  );
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });
  afterAll(() => smtp.close());

  /** The history as the server stores it, failures included: fetched by a client without the codec. */
  async function rawHistory(workflowId: string) {
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const history = History.fromObject(await plain.workflow.getHandle(workflowId).fetchHistory());
    return { json: history.toJSON(), bytes: Buffer.from(History.encode(history).finish()).toString('latin1') };
  }

  /** Every failure of the history, causes included, as protobuf JSON. */
  function failuresOf(json: object): JsonFailure[] {
    const found: JsonFailure[] = [];
    const walk = (value: unknown, key?: string) => {
      if (!value || typeof value !== 'object') return;
      if (key === 'failure' || key === 'cause') found.push(value);
      for (const [k, v] of Object.entries(value)) walk(v, k);
    };
    walk(json);
    return found;
  }

  it('refuses the send, and the SMTP server’s answer naming the recipient reaches Temporal and the logs only encrypted or not at all', async () => {
    const session = await driver.createSession();
    expect(await refusalOf(driver.sendCode(session, REJECTED))).toBe(OTP_SEND_FAILED);
    await driver.cancel(session);
    await session.handle.result();

    const { json, bytes } = await rawHistory(session.handle.workflowId);
    expect(bytes.includes(REJECTED), 'the contact in the raw history').toBe(false);
    expect(bytes.includes('reject.me'), 'the contact’s local part in the raw history').toBe(false);
    // The activity's failures and the update's refusal are there, their messages encoded.
    const failures = failuresOf(json);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.message).toBe('Encoded failure');
      expect(failure.stackTrace ?? '').toBe('');
      expect(Buffer.from(failure.encodedAttributes!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    }
    expect(bytes).not.toContain('The code could not be sent');

    const logs = logLines.join('\n');
    expect(logs, 'the worker logged the failed sends').toContain('Activity failed');
    expect(logs.includes(REJECTED) || logs.includes('reject.me'), 'the contact in the logs').toBe(false);
    expect(findLeaks('logs', logs, [REJECTED])).toEqual([]);
    expect(await findLeaksInDatabase(stack.db, 'db', [REJECTED])).toEqual([]);
  });

  it('decodes the encoded failures through /codec, as the Temporal UI does: message and stack, still without the contact', async () => {
    const session = await driver.createSession();
    await refusalOf(driver.sendCode(session, REJECTED));
    await driver.cancel(session);
    await session.handle.result();
    const failures = failuresOf((await rawHistory(session.handle.workflowId)).json);
    const res = await fetch(`${stack.apiUrl}/codec/decode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ payloads: failures.map((f) => f.encodedAttributes) }),
    });
    expect(res.status).toBe(200);
    const decoded = ((await res.json()) as { payloads: JsonPayload[] }).payloads.map(
      (p) => JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) as { message: string; stack_trace: string },
    );
    const messages = decoded.map((d) => d.message);
    expect(messages).toContain('The code could not be sent. Try again.');
    expect(messages).toContain('SMTP send failed (EENVELOPE): the server answered 550 5.1.1');
    expect(decoded.some((d) => d.stack_trace.length > 0)).toBe(true);
    expect(JSON.stringify(decoded)).not.toContain('reject.me');
  });
});
