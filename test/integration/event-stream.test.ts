import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../core/merchants/api-keys.js';
import { STREAMS_PER_MERCHANT } from '../../api/merchant/event-paths.js';
import { FEED_POLL_MS, FEED_REAUTH_MS } from '../../api/merchant/event-stream-routes.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

interface Message {
  event: string;
  id: string;
  data: string;
}

/** The stream's messages as they arrive, read from the response in the background. */
function messagesOf(response: Response): Message[] {
  const messages: Message[] = [];
  void (async () => {
    let buffer = '';
    for await (const chunk of response.body!.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) {
      buffer += chunk;
      const blocks = buffer.split('\n\n');
      buffer = blocks.pop()!;
      for (const block of blocks) {
        const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
        if (fields.data !== undefined) messages.push({ event: fields.event ?? 'message', id: fields.id ?? '', data: fields.data });
      }
    }
  })().catch(() => {});
  return messages;
}

describe('GET /v2/merchant/events/stream', () => {
  const stack = useTestStack();

  it('sends an event whose transaction commits after a later one’s, before it and once, and resumes after a Last-Event-ID', async () => {
    const merchant = await stack.createMerchant();
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const [slow, quick] = [await driver.createSession(), await driver.createSession()];
    const headers = { authorization: `Bearer ${merchant.apiKey}` };
    const stopping = new AbortController();
    const messages = messagesOf(await fetch(`${stack.apiUrl}/v2/merchant/events/stream`, { headers, signal: stopping.signal }));
    await waitFor(() => messages.find((m) => m.event === 'ready'), { what: 'the ready message' });

    // An event recorded by a transaction that stays open, as one waiting on a lock does, while a later one commits.
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const slowEventId = 'evt_recordedbyaslowtransaction';
    const slowTransaction = stack.db.begin(async (tx) => {
      await tx`insert into webhook_events (id, cart_id, platform_uuid, sequence, event, payload)
        values (${slowEventId}, ${slow.cartId}, ${merchant.platformUuid}, 1, 'order_updated',
          ${tx.json({ id: slowEventId, event: 'order_updated', data: { cartId: slow.cartId } })})`;
      await held;
    });
    await sleep(50);
    expect((await merchantApi(stack, merchant.apiKey).expire(quick.cartId)).status).toBe(200);
    const [quickEvent] = await waitFor(async () => {
      const rows = await stack.db<{ id: string }[]>`select id from webhook_events where cart_id = ${quick.cartId}`;
      return rows.length > 0 ? rows : undefined;
    });
    // Three polls: the committed event waits behind the open transaction rather than be sent before an event that would then be skipped.
    await sleep(3_000);
    expect(messages.map((m) => m.event)).toEqual(['ready']);

    commit();
    await slowTransaction;
    await waitFor(() => (messages.length === 3 ? true : undefined), { what: 'both events' });
    expect(messages.slice(1).map((m) => (JSON.parse(m.data) as { id: string }).id)).toEqual([slowEventId, quickEvent!.id]);
    await sleep(2_000);
    expect(messages).toHaveLength(3);
    stopping.abort();

    // A reconnection after the first event gets the second, and nothing before it.
    const reconnected = new AbortController();
    const resumed = messagesOf(
      await fetch(`${stack.apiUrl}/v2/merchant/events/stream?types=order_cancelled`, {
        headers: { ...headers, 'last-event-id': messages[1]!.id },
        signal: reconnected.signal,
      }),
    );
    await waitFor(() => (resumed.length === 2 ? true : undefined), { what: 'the resumed stream' });
    expect(resumed.map((m) => m.event)).toEqual(['ready', 'order_cancelled']);
    expect(resumed[1]).toEqual(messages[2]);
    reconnected.abort();
  });

  it(`refuses a merchant's stream beyond ${STREAMS_PER_MERCHANT} open at once with RATE_LIMITED, and takes one again once one closes`, async () => {
    const merchant = await stack.createMerchant();
    const url = `${stack.apiUrl}/v2/merchant/events/stream`;
    const headers = { authorization: `Bearer ${merchant.apiKey}` };
    const streams = Array.from({ length: STREAMS_PER_MERCHANT }, () => new AbortController());
    for (const stream of streams) expect((await fetch(url, { headers, signal: stream.signal })).status).toBe(200);
    const refused = await fetch(url, { headers });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    // Another merchant is not held to this one's streams.
    const other = await stack.createMerchant();
    const theirs = new AbortController();
    expect((await fetch(url, { headers: { authorization: `Bearer ${other.apiKey}` }, signal: theirs.signal })).status).toBe(200);
    theirs.abort();
    // A closed stream is given back once the server sees it gone (at its next poll).
    streams.pop()!.abort();
    const again = await waitFor(
      async () => {
        const attempt = new AbortController();
        const response = await fetch(url, { headers, signal: attempt.signal });
        if (response.status === 200) return attempt;
        await response.body?.cancel();
        return undefined;
      },
      { timeoutMs: 10_000, what: 'a stream once one was closed' },
    );
    for (const stream of [...streams, again]) stream.abort();
  });

  it('ends an open stream once its key is rotated out, and refuses the key when the client reconnects', async () => {
    const merchant = await stack.createMerchant();
    const url = `${stack.apiUrl}/v2/merchant/events/stream`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${merchant.apiKey}` } });
    const ended = response.text();
    await rotateApiKey(stack.db, merchant.platformUuid);
    const rotatedAt = Date.now();
    expect(await ended).toMatch(/^event: ready\n/);
    expect(Date.now() - rotatedAt).toBeLessThan(FEED_REAUTH_MS + 5 * FEED_POLL_MS);
    expect((await fetch(url, { headers: { authorization: `Bearer ${merchant.apiKey}` } })).status).toBe(401);
  });
});
