import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paidCarts } from '../support/merchant-api.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The contact as an endpoint might echo it: verbatim, upper-cased, URL-encoded, JSON-escaped. */
function echoes(contact: string): string[] {
  const unicodeEscaped = [...contact].map((ch) => (/[a-z0-9]/i.test(ch) ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('');
  return [contact, contact.toUpperCase(), encodeURIComponent(contact), encodeURIComponent(contact).toLowerCase(), unicodeEscaped];
}

/**
 * Issue 48, point 7: an endpoint that echoes our body in a 400 left the customer's verified contact in
 * clear in `webhook_attempts.response_excerpt`, where the contact is otherwise kept sealed. The
 * excerpt is stored with the contact replaced, in every form it is echoed in. Against a real HTTP
 * receiver, read from PostgreSQL directly.
 */
describe("a webhook attempt's response excerpt never keeps the order's contact", () => {
  // One attempt per event: the schedule's first, which the test reads.
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0' });
  /** Answers 400 with our body, then the contact of the body as other receivers would echo it. */
  let echoing: WebhookReceiver;
  beforeAll(async () => {
    echoing = await startWebhookReceiver((request) => {
      const body = JSON.parse(request.rawBody) as { data: { customer?: { email?: string; phone?: string } | null } };
      const contact = body.data.customer?.email ?? body.data.customer?.phone ?? '';
      return { status: 400, body: [request.rawBody, ...echoes(contact)].join('\n') };
    });
  });
  afterAll(() => echoing?.close());

  async function excerptOf(cartId: string): Promise<string> {
    return waitFor(
      async () => {
        const [row] = await stack.db<{ response_excerpt: string | null }[]>`
          select a.response_excerpt from webhook_attempts a join webhook_events e on e.id = a.event_id
          where e.cart_id = ${cartId} and e.event = 'order_created' and a.error_class = 'http_status'`;
        return row?.response_excerpt ?? undefined;
      },
      { what: "the order_created attempt's excerpt" },
    );
  }

  function expectNoContact(excerpt: string, contact: string, cartId: string) {
    for (const form of echoes(contact)) expect(excerpt.toLowerCase()).not.toContain(form.toLowerCase());
    // The rest of the answer is kept: what an operator needs to see why the endpoint refused.
    expect(excerpt).toContain(cartId);
    expect(excerpt.split('[contact redacted]').length - 1).toBeGreaterThanOrEqual(1 + echoes(contact).length);
  }

  it('redacts a verified email, in every form the endpoint echoes it', async () => {
    const merchant = await stack.createMerchant({ name: 'Echoing Store', webhookUrl: echoing.url });
    const cartId = await paidCarts(stack, merchant).paidCart();
    expectNoContact(await excerptOf(cartId), 'jane.doe@example.com', cartId);
  });

  it('redacts a verified phone number, in every form the endpoint echoes it', async () => {
    const merchant = await stack.createMerchant({ name: 'Echoing Store', webhookUrl: echoing.url });
    const { driver } = paidCarts(stack, merchant);
    const session = await driver.createSession();
    await driver.sendCode(session, '+33612345678');
    expect((await driver.verify(session, await driver.sentCode(session))).step).toBe('card');
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    expectNoContact(await excerptOf(session.cartId), '+33612345678', session.cartId);
  });
});
