import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOrderStore, type OrderStore, type StoreOrder } from '../../demo-store/order-store.js';
import { createWebhookReceiver } from '../../demo-store/webhooks.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe("the demo store's webhook receiver", () => {
  let dir: string;
  let file: string;
  let store: OrderStore;
  let order: StoreOrder;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'demo-store-unit-'));
    file = path.join(dir, 'orders.json');
    store = openOrderStore(file);
    order = await store.create({ currency: 'EUR', items: [{ productId: 'notebook', title: 'Notebook', price: 1500, quantity: 2 }], total: 3000 });
    await store.update(() => {
      order.cartId = 'cart_abc';
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const event = (id: string, name: string, sequence: number, status: string, extra: Record<string, unknown> = {}) => ({
    id,
    event: name,
    createdAt: '2030-01-01T12:00:00.000Z',
    environment: 'sandbox',
    sequence,
    data: { cartId: 'cart_abc', status, amount: 3000, currency: 'EUR', items: [], extra: { orderId: order.id }, createdWith: 'api_key', ...extra },
  });

  /** Signed as Hosted Checkout signs: Standard Webhooks over the exact bytes sent. */
  function delivery(body: object, secret = SECRET, at = new Date()) {
    const raw = Buffer.from(JSON.stringify(body));
    const id = (body as { id: string }).id;
    return {
      raw,
      headers: {
        'Content-Type': 'application/json',
        'Webhook-Id': id,
        'Webhook-Timestamp': String(Math.floor(at.getTime() / 1000)),
        'Webhook-Signature': new Webhook(secret).sign(id, at, raw.toString()),
      },
    };
  }

  const receiver = () => createWebhookReceiver({ secret: SECRET, store });
  const saved = (): StoreOrder => JSON.parse(readFileSync(file, 'utf8')).orders[0];

  it('follows retryOf: a retry of the order’s failed cart whose answer the store never got lands on the same order; a late event of the failed cart changes nothing', async () => {
    const failed = delivery(event('evt_f', 'order_updated', 1, 'failed'));
    expect(await receiver().receive(failed.raw, failed.headers)).toMatchObject({ result: 'applied' });
    const retried = delivery({
      ...event('evt_r', 'order_created', 1, 'paid'),
      data: { ...event('evt_r', 'order_created', 1, 'paid').data, cartId: 'cart_def', retryOf: 'cart_abc' },
    });
    expect(await receiver().receive(retried.raw, retried.headers)).toMatchObject({ status: 200, result: 'applied' });
    expect(saved()).toMatchObject({ cartId: 'cart_def', earlierCartIds: ['cart_abc'], status: 'paid', appliedSequence: 1, fulfilledAt: expect.any(String) });
    const late = delivery(event('evt_late', 'order_updated', 2, 'failed'));
    expect(await receiver().receive(late.raw, late.headers)).toMatchObject({ result: 'applied' });
    expect(saved()).toMatchObject({ cartId: 'cart_def', status: 'paid', appliedSequence: 1 });
    expect(saved().webhooks.map((w) => [w.cartId, w.eventId])).toEqual([
      ['cart_abc', 'evt_f'],
      ['cart_def', 'evt_r'],
      ['cart_abc', 'evt_late'],
    ]);
    // Another store's cart (or one not retried from this order's) stays unmatched, retryOf or not.
    const stranger = delivery({
      ...event('evt_s', 'order_created', 1, 'paid'),
      data: { ...event('evt_s', 'order_created', 1, 'paid').data, cartId: 'cart_xyz', retryOf: 'cart_nope' },
    });
    expect(await receiver().receive(stranger.raw, stranger.headers)).toMatchObject({ result: 'unmatched' });
  });

  it('fulfils on a verified order_created, and persists it before answering', async () => {
    const { raw, headers } = delivery(event('evt_1', 'order_created', 2, 'paid'));
    expect(await receiver().receive(raw, headers)).toMatchObject({ status: 200, result: 'applied' });
    expect(saved()).toMatchObject({ status: 'paid', appliedSequence: 2, fulfilledAt: expect.any(String) });
  });

  it('refuses a bad signature, a stale timestamp, a changed body and a body that is not the signed event, acting on none', async () => {
    const wrongSecret = delivery(event('evt_1', 'order_created', 2, 'paid'), OTHER_SECRET);
    const stale = delivery(event('evt_2', 'order_created', 2, 'paid'), SECRET, new Date(Date.now() - 10 * 60_000));
    const tampered = delivery(event('evt_3', 'order_created', 2, 'paid'));
    const tamperedRaw = Buffer.from(tampered.raw.toString().replace('"amount":3000', '"amount":1'));
    const swapped = delivery(event('evt_4', 'order_created', 2, 'paid'));
    const swappedHeaders = {
      ...swapped.headers,
      'Webhook-Id': 'evt_other',
      'Webhook-Signature': new Webhook(SECRET).sign('evt_other', new Date(), swapped.raw.toString()),
    };

    const outcomes = [
      await receiver().receive(wrongSecret.raw, wrongSecret.headers),
      await receiver().receive(stale.raw, stale.headers),
      await receiver().receive(tamperedRaw, tampered.headers),
      await receiver().receive(swapped.raw, swappedHeaders),
    ];
    expect(outcomes.map((o) => o.status)).toEqual([400, 400, 400, 400]);
    expect(outcomes.map((o) => (o.status === 400 ? o.reason : ''))).toEqual([
      'No matching signature found',
      'Message timestamp too old',
      'No matching signature found',
      'the body is not the event named by webhook-id',
    ]);
    expect(saved()).toMatchObject({ status: 'awaiting_payment', fulfilledAt: null, appliedSequence: 0 });
    expect(saved().webhooks.map((w) => w.verified)).toEqual([false, false, false, false]);
  });

  it('acknowledges a duplicate without applying it twice', async () => {
    const paid = delivery(event('evt_1', 'order_created', 2, 'paid'));
    await receiver().receive(paid.raw, paid.headers);
    const firstFulfilment = saved().fulfilledAt;
    const again = delivery(event('evt_1', 'order_created', 2, 'paid'));
    expect(await receiver().receive(again.raw, again.headers)).toMatchObject({ status: 200, result: 'duplicate' });
    expect(saved().webhooks).toHaveLength(1);
    expect(saved().webhooks[0]).toMatchObject({ eventId: 'evt_1', deliveries: 2 });
    expect(saved().fulfilledAt).toBe(firstFulfilment);
  });

  it('orders by sequence: an older event arriving late is recorded but never rolls the order back', async () => {
    const refunded = delivery(
      event('evt_3', 'order_refunded', 3, 'partially_refunded', { refund: { id: 'rf_1', amount: 500, refundedTotal: 500, reason: null } }),
    );
    const paid = delivery(event('evt_2', 'order_created', 2, 'paid'));
    const processing = delivery(event('evt_1', 'order_updated', 1, 'processing'));
    for (const d of [refunded, paid, processing]) expect(await receiver().receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'applied' });
    expect(saved()).toMatchObject({ status: 'partially_refunded', appliedSequence: 3, refundedTotal: 500, fulfilledAt: expect.any(String) });
    expect(saved().webhooks.map((w) => w.sequence)).toEqual([3, 2, 1]);
  });

  it('acknowledges a verified event for a cart it has no order for, and keeps it apart', async () => {
    const stranger = event('evt_9', 'order_cancelled', 1, 'cancelled');
    stranger.data.cartId = 'cart_elsewhere';
    const d = delivery(stranger);
    expect(await receiver().receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'unmatched' });
    expect(JSON.parse(readFileSync(file, 'utf8')).unmatched).toEqual([expect.objectContaining({ cartId: 'cart_elsewhere', eventId: 'evt_9', verified: true })]);
    expect(saved().webhooks).toEqual([]);
  });

  it('never fulfils its cartId for another amount or currency than the order it created it for', async () => {
    for (const [id, changed] of [
      ['evt_a', { amount: 1 }],
      ['evt_c', { currency: 'USD' }],
    ] as const) {
      const paid = event(id, 'order_created', 2, 'paid');
      const d = delivery({ ...paid, data: { ...paid.data, ...changed, createdWith: 'public' } });
      expect(await receiver().receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'unmatched' });
    }
    expect(saved()).toMatchObject({ fulfilledAt: null, webhooks: [] });
    expect(JSON.parse(readFileSync(file, 'utf8')).unmatched.map((w: { eventId: string }) => w.eventId)).toEqual(['evt_a', 'evt_c']);
  });

  it('fulfils only a cart created with its API key: a public order_created, even for its own cartId and total, is kept apart', async () => {
    // The store sends its key on create-cart; a cart made without it (`createdWith: "public"`) was made
    // by whoever knows the platformUuid, whatever cartId, amount and extra its events claim.
    for (const [id, createdWith] of [
      ['evt_public', 'public'],
      ['evt_unsaid', undefined],
    ] as const) {
      const paid = event(id, 'order_created', 2, 'paid', { createdWith });
      const d = delivery(paid);
      expect(await receiver().receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'unmatched' });
    }
    expect(saved()).toMatchObject({ status: 'awaiting_payment', fulfilledAt: null, webhooks: [] });
    expect(JSON.parse(readFileSync(file, 'utf8')).unmatched.map((w: { eventId: string }) => w.eventId)).toEqual(['evt_public', 'evt_unsaid']);

    const keyed = delivery(event('evt_keyed', 'order_created', 2, 'paid'));
    expect(await receiver().receive(keyed.raw, keyed.headers)).toMatchObject({ status: 200, result: 'applied' });
    expect(saved()).toMatchObject({ status: 'paid', fulfilledAt: expect.any(String) });
  });

  it('keeps only the latest 100 unmatched events: anyone can create carts and have their signed events sent here', async () => {
    const KEPT_UNMATCHED = 100;
    for (let i = 0; i < KEPT_UNMATCHED + 30; i++) {
      const stranger = event(`evt_${i}`, 'order_created', 2, 'paid', { createdWith: 'public' });
      stranger.data.cartId = `cart_stranger_${i}`;
      const d = delivery(stranger);
      expect(await receiver().receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'unmatched' });
    }
    const kept = JSON.parse(readFileSync(file, 'utf8')).unmatched.map((w: { eventId: string }) => w.eventId);
    expect(kept).toHaveLength(KEPT_UNMATCHED);
    expect(kept[0]).toBe('evt_30');
    expect(kept.at(-1)).toBe(`evt_${KEPT_UNMATCHED + 29}`);
  });
});
