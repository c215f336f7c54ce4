import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
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

interface StreamMedia {
  'x-itemSchema': { $ref: string };
}

describe('the event stream against its documented schema (docs/clients.md)', () => {
  const stack = useTestStack();

  it('sends messages that each validate against the x-itemSchema the served document gives the stream', async () => {
    const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, { get: { responses: { 200: { content: Record<string, StreamMedia> } } } }>;
    };
    const media = document.paths['/v2/merchant/events/stream']!.get.responses[200].content['text/event-stream']!;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...document, $id: 'openapi' });
    const validate = ajv.compile({ $ref: `openapi${media['x-itemSchema'].$ref}` });
    const valid = (message: Message) => {
      const ok = validate({ event: message.event, id: message.id, data: JSON.parse(message.data) as unknown });
      return ok ? 'valid' : `${message.event}: ${ajv.errorsText(validate.errors)}`;
    };

    const merchant = await stack.createMerchant();
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const api = merchantApi(stack, merchant.apiKey);
    const stopping = new AbortController();
    const messages = messagesOf(
      await fetch(`${stack.apiUrl}/v2/merchant/events/stream`, { headers: { authorization: `Bearer ${merchant.apiKey}` }, signal: stopping.signal }),
    );
    try {
      await waitFor(() => messages.find((m) => m.event === 'ready'), { what: 'the ready message' });

      // order_created then order_refunded; order_updated (failed); order_cancelled.
      const paid = await driver.verifiedSession();
      expect((await driver.pay(paid, SANDBOX_CARDS.approved)).status).toBe('paid');
      expect((await api.refund(paid.cartId, { amount: 1000 })).status).toBe(201);
      const declined = await driver.verifiedSession();
      await driver.pay(declined, SANDBOX_CARDS.declined);
      const expired = await driver.createSession();
      expect((await api.expire(expired.cartId)).status).toBe(200);

      const wanted = ['ready', 'order_created', 'order_refunded', 'order_updated', 'order_cancelled'];
      await waitFor(() => (wanted.every((event) => messages.some((m) => m.event === event)) ? true : undefined), {
        timeoutMs: 30_000,
        what: `messages ${wanted.join(', ')}`,
      });
      expect(messages.map(valid)).toEqual(messages.map(() => 'valid'));

      // The schema tells a wrong message apart: a field no event has, an event name that is none, an amount as a string.
      const created = messages.find((m) => m.event === 'order_created')!;
      const body = JSON.parse(created.data) as { data: Record<string, unknown> };
      expect(valid({ ...created, data: JSON.stringify({ ...body, surplus: 1 }) })).not.toBe('valid');
      expect(valid({ ...created, event: 'order_paid' })).not.toBe('valid');
      expect(valid({ ...created, data: JSON.stringify({ ...body, data: { ...body.data, amount: '4498' } }) })).not.toBe('valid');
    } finally {
      stopping.abort();
    }
  }, 120_000);
});
