import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { expireUpdate } from '../../workflows/cart-session/messages.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { useTestStack } from '../support/test-stack.js';

const { History } = temporal.api.history.v1;
const TOKEN = 'test-operator-token-0123456789';
const UI_ORIGIN = 'http://localhost:8233';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (b64value: string | undefined) => Buffer.from(b64value ?? '', 'base64').toString('utf8');

interface JsonPayload {
  metadata: Record<string, string>;
  data: string;
}

describe('Temporal payloads are encrypted; operators decode them through /codec', () => {
  const stack = useTestStack();

  /** A paid session's history as the server stores it: fetched by a client without the codec. */
  async function rawHistoryOfPaidSession() {
    const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
    const session = await driver.verifiedSession();
    await driver.pay(session, SANDBOX_CARDS.approved);
    await session.handle.result();
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const history = History.fromObject(await plain.workflow.getHandle(session.handle.workflowId).fetchHistory());
    return { session, history, bytes: Buffer.from(History.encode(history).finish()).toString('latin1') };
  }

  const codec = (op: 'encode' | 'decode' | 'session', body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }) =>
    fetch(`${stack.apiUrl}/codec/${op}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('keeps the contact, `extra` and the card token out of the raw history; search attributes stay readable', async () => {
    const { session, history, bytes } = await rawHistoryOfPaidSession();
    expect(bytes).not.toContain('jane.doe@example.com');
    expect(bytes).not.toContain('order-42');
    expect(bytes).not.toContain('card_');
    expect(bytes).toContain('binary/encrypted');
    expect(bytes).toContain('encryption-key-id');
    // The search attributes are not encoded by payload codecs: still there in clear, and searchable.
    expect(JSON.stringify(history.toJSON())).toContain(b64('"paid"'));
    expect((await session.handle.describe()).searchAttributes).toMatchObject({ CartStatus: ['paid'] });
    // …while the codec's clients read the session as before.
    expect(await session.handle.result()).toMatchObject({ status: 'paid' });
  });

  it('keeps every path of a session out of the raw history, the merchant’s expire too: contact, code hashes, card token, extra', async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const rawHistory = async (workflowId: string) =>
      Buffer.from(History.encode(History.fromObject(await plain.workflow.getHandle(workflowId).fetchHistory())).finish()).toString('latin1');

    const paid = await driver.verifiedSession();
    await driver.pay(paid, SANDBOX_CARDS.approved);
    const declined = await driver.verifiedSession();
    await driver.pay(declined, SANDBOX_CARDS.declined);
    const cancelled = await driver.createSession();
    await driver.sendCode(cancelled, '+33 6 12 34 56 78');
    await driver.cancel(cancelled);
    const lockedOut = await driver.createSession();
    await driver.sendCode(lockedOut);
    for (let i = 0; i < 5; i++) await driver.verify(lockedOut, '000000');
    const expired = await driver.createSession();
    await driver.sendCode(expired);
    await expired.handle.executeUpdate(expireUpdate, { updateId: `expire-${expired.cartId}` });

    for (const [path, session] of Object.entries({ paid, declined, cancelled, lockedOut, expired })) {
      await session.handle.result();
      const bytes = await rawHistory(session.handle.workflowId);
      const codeHashes = [stack.config.sandboxOtp, await driver.sentCode(session), '000000'].map((code) => otpHash(stack.config.keyring, session.cartId, code));
      for (const secret of ['jane.doe@example.com', '+33612345678', 'order-42', 'card_', ...codeHashes]) {
        expect(bytes.includes(secret), `${path}: ${secret} in the raw history`).toBe(false);
      }
    }
  });

  it('decodes what the client encoded, encodes and decodes back, for the bearer token or the operator cookie', async () => {
    const { session: paid, history } = await rawHistoryOfPaidSession();
    const started = (history.toJSON() as { events: Array<{ workflowExecutionStartedEventAttributes?: { input: { payloads: JsonPayload[] } } }> }).events[0]!
      .workflowExecutionStartedEventAttributes!.input.payloads;
    expect(text(started[0]!.metadata.encoding)).toBe('binary/encrypted');
    expect(text(started[0]!.metadata['encryption-key-id'])).toBe(stack.config.keyring.sealingKeyId);

    const decoded = await codec('decode', { payloads: started });
    expect(decoded.status).toBe(200);
    const [input] = ((await decoded.json()) as { payloads: JsonPayload[] }).payloads;
    expect(text(input!.metadata.encoding)).toBe('json/plain');
    expect(JSON.parse(text(input!.data))).toMatchObject({ cartId: paid.cartId });

    const clear = { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify({ hello: 'operator' })) };
    const encoded = ((await (await codec('encode', { payloads: [clear] })).json()) as { payloads: JsonPayload[] }).payloads;
    expect(text(encoded[0]!.metadata.encoding)).toBe('binary/encrypted');
    expect(text(encoded[0]!.data)).not.toContain('operator');

    const session = await codec('session', {});
    expect(session.status).toBe(204);
    const cookie = session.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^checkout_operator=.+; Max-Age=28800; Path=\/codec; HttpOnly; Secure; SameSite=None$/);
    // A session, not the operator token itself; and a forged or expired one is refused.
    expect(cookie).not.toContain(TOKEN);
    const forged = await codec('decode', { payloads: [] }, { Cookie: `checkout_operator=${Date.now() + 60_000}.${'0'.repeat(64)}` });
    expect(forged.status).toBe(401);
    const expired = await codec('decode', { payloads: [] }, { Cookie: `checkout_operator=${Date.now() - 1}.${'0'.repeat(64)}` });
    expect(expired.status).toBe(401);
    const viaCookie = await codec('decode', { payloads: encoded }, { Cookie: cookie.split(';')[0]!, Origin: UI_ORIGIN });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(((await viaCookie.json()) as { payloads: JsonPayload[] }).payloads).toEqual([clear]);
    // A payload that was never encrypted (a history from before the codec) passes through as it is.
    expect(((await (await codec('decode', { payloads: [clear] })).json()) as { payloads: JsonPayload[] }).payloads).toEqual([clear]);
  });

  it('refuses without the operator token, and answers the Temporal UI preflight', async () => {
    const payloads = { payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('1') }] };
    expect((await codec('decode', payloads, {})).status).toBe(401);
    expect((await codec('encode', payloads, { Authorization: 'Bearer wrong-token-wrong-token-wrong' })).status).toBe(401);
    expect((await codec('decode', payloads, { Cookie: 'checkout_operator=wrong' })).status).toBe(401);

    const preflight = await fetch(`${stack.apiUrl}/codec/decode`, {
      method: 'OPTIONS',
      headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');

    const stranger = await fetch(`${stack.apiUrl}/codec/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
