import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { savedCardsOf } from '../../core/checkout/saved-cards.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantCli, merchantCliProcess } from '../support/operator.js';
import { seedSavedCard } from '../support/saved-cards.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('operator CLI: npm run -s merchant', () => {
  const stack = useTestStack();
  const cli = merchantCli(stack);
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('creates a merchant whose deliveries verify with the secret it printed, then lists, replays and shows them', async () => {
    const created = await cli('create', '--name', 'CLI Store', '--webhook-url', receiver.url);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      platformUuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      environment: 'sandbox',
      webhookUrl: receiver.url,
      webhookSecret: expect.stringMatching(/^whsec_/),
    });
    const { platformUuid, webhookSecret } = created.json as { platformUuid: string; webhookSecret: string };

    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    const { eventId } = await cartEvents(stack).recordCartEvent({
      cartId,
      event: 'order_abandoned',
      status: 'abandoned',
    });
    await waitFor(() => (receiver.requests.length === 1 ? true : undefined), { what: 'the delivery' });
    const delivery = receiver.requests[0]!;
    expect(verifyWebhook(delivery.rawBody, delivery.headers as Record<string, string>, webhookSecret)).toMatchObject({
      valid: true,
      event: { id: eventId, data: { cartId } },
    });

    const listed = await cli('list');
    expect((listed.json.merchants as Array<{ platformUuid: string }>).map((m) => m.platformUuid)).toContain(platformUuid);

    expect((await cli('replay', '--event-id', eventId)).json).toEqual({
      eventId,
      cartId,
      deliveries: [
        {
          endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          result: 'sent',
          attempt: { responseStatus: 200, error: null, durationMs: expect.any(Number) },
          message: expect.stringMatching(/^Sent: 200 in \d+ ms$/),
        },
      ],
    });
    await waitFor(() => (receiver.requests.length === 2 ? true : undefined), { what: 'the replay' });
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(eventId);

    // A loaded machine may have retried the scheduled delivery (the receiver answering past the
    // webhook timeout): the listing ends with the replay, after the scheduled attempt(s).
    const deliveries = await waitFor(
      async () => {
        const out = await cli('deliveries', '--cart-id', cartId);
        // A listing that failed is retried like one without the replay yet, and named if none succeeds.
        if (out.code !== 0) throw new Error(`deliveries exited ${out.code}: ${out.stderr}`);
        const events = (out.json.events ?? []) as Array<{ attempts: Array<{ trigger: string }> }>;
        return events[0]?.attempts.some((a) => a.trigger === 'replay') ? events : undefined;
      },
      { what: 'the replay attempt listed', timeoutMs: 30_000 },
    );
    const triggers = deliveries[0]!.attempts.map((a) => a.trigger);
    expect(triggers.length).toBeGreaterThanOrEqual(2);
    expect(triggers).toEqual([...Array<string>(triggers.length - 1).fill('scheduled'), 'replay']);

    const rotated = await cli('rotate-secret', '--platform-uuid', platformUuid);
    expect(rotated.json).toMatchObject({ platformUuid, webhookSecret: expect.stringMatching(/^whsec_/) });
    expect(rotated.json.webhookSecret).not.toBe(webhookSecret);
    expect((await cli('deactivate', '--platform-uuid', platformUuid)).json).toMatchObject({ status: 'inactive' });
  });

  it('adds, changes and lists a merchant’s webhook endpoints', async () => {
    const { platformUuid } = await stack.createMerchant({ webhookUrl: receiver.url });
    const added = await cli(
      'add-endpoint',
      '--platform-uuid',
      platformUuid,
      '--url',
      'http://127.0.0.1:9/accounting',
      '--event',
      'order_refunded',
      '--description',
      'Accounting',
    );
    expect(added).toMatchObject({ code: 0, json: { enabledEvents: ['order_refunded'], description: 'Accounting', secret: expect.stringMatching(/^whsec_/) } });
    const id = added.json.id as string;
    expect(
      (await cli('update-endpoint', '--platform-uuid', platformUuid, '--endpoint-id', id, '--event', 'order_refunded', '--event', 'order_cancelled')).json,
    ).toMatchObject({
      id,
      enabledEvents: ['order_refunded', 'order_cancelled'],
    });
    const listed = (await cli('endpoints', '--platform-uuid', platformUuid)).json.endpoints as Array<{ url: string; enabledEvents: string[] }>;
    expect(listed.map((e) => [e.url, e.enabledEvents])).toEqual([
      [receiver.url, ['*']],
      ['http://127.0.0.1:9/accounting', ['order_refunded', 'order_cancelled']],
    ]);
  });

  it('refuses an unusable URL, an unknown merchant and a missing option, with a JSON error and a non-zero exit', async () => {
    // As operators run it: `npm run -s merchant`, its own process, whose exit code is the answer.
    const asOperator = merchantCliProcess(stack);
    const insecure = await asOperator('create', '--name', 'Prod', '--webhook-url', 'http://127.0.0.1/hook', '--environment', 'production');
    expect(insecure).toMatchObject({ code: 1, json: { error: expect.stringContaining('https') } });
    const unknown = await cli('deactivate', '--platform-uuid', '00000000-0000-4000-8000-000000000000');
    expect(unknown).toMatchObject({ code: 1, json: { error: expect.stringContaining('no merchant') } });
    const usage = await asOperator('create', '--name', 'No URL');
    expect(usage).toMatchObject({ code: 2, json: { error: '--webhook-url is required' } });
    expect(usage.stderr).toContain('rotate-secret');
  });

  it('turns a merchant’s saved cards off and on, and erases what a contact saved', async () => {
    const { platformUuid } = await stack.createMerchant();
    expect((await cli('set-saved-cards', '--platform-uuid', platformUuid, '--off')).json).toMatchObject({ platformUuid, savedCardsAllowed: false });
    expect((await cli('set-saved-cards', '--platform-uuid', platformUuid, '--on')).json).toMatchObject({ platformUuid, savedCardsAllowed: true });
    expect((await cli('set-saved-cards', '--platform-uuid', platformUuid)).code).toBe(2);

    await seedSavedCard(stack, 'cli-erase@example.com', '4111111111111111', 'cli-erase-checkout');
    const erased = await cli('erase-saved-cards', '--contact', 'cli-erase@example.com');
    expect(erased.code).toBe(0);
    expect(erased.json).toMatchObject({ removed: 1 });
    expect(await savedCardsOf(stack.db, savedCardContactKey(stack.config.keyring, 'cli-erase@example.com'), 'sandbox')).toEqual([]);
    expect((await cli('erase-saved-cards', '--contact', 'nobody')).code).toBe(2);
  });
});
