import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openOrderStore, type OrderStore, type StoreOrder } from '../../demo-store/order-store.js';
import { orderPage } from '../../demo-store/views.js';
import { createWebhookReceiver } from '../../demo-store/webhooks.js';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

/**
 * The demo store's ship-later order (captureMethod manual): its order_created says `authorized`, which
 * is not a payment. The order waits for shipment and is fulfilled once the capture's order_updated
 * (`paid`) confirms the charge, in whichever order the two arrive.
 */
describe("the demo store's ship-later orders", () => {
  let dir: string;
  let file: string;
  let store: OrderStore;
  let order: StoreOrder;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'demo-store-ship-later-'));
    file = path.join(dir, 'orders.json');
    store = openOrderStore(file);
    order = await store.create({
      currency: 'EUR',
      items: [{ productId: 'serving-bowl', title: 'Serving bowl (ships later)', price: 3400, quantity: 1 }],
      total: 3400,
    });
    await store.update(() => {
      order.cartId = 'cart_bowl';
    });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function delivery(id: string, name: string, sequence: number, status: string) {
    const body = {
      id,
      event: name,
      createdAt: '2030-01-01T12:00:00.000Z',
      environment: 'sandbox',
      sequence,
      data: {
        cartId: 'cart_bowl',
        status,
        amount: 3400,
        currency: 'EUR',
        items: [],
        extra: { orderId: order.id },
        createdWith: 'api_key',
        captureMethod: 'manual',
      },
    };
    const raw = Buffer.from(JSON.stringify(body));
    const at = new Date();
    return {
      raw,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, at, raw.toString()),
      },
    };
  }

  const receive = async (d: ReturnType<typeof delivery>) =>
    expect(await createWebhookReceiver({ secret: SECRET, store }).receive(d.raw, d.headers)).toMatchObject({ status: 200, result: 'applied' });
  const saved = (): StoreOrder => JSON.parse(readFileSync(file, 'utf8')).orders[0];

  it('is not fulfilled while authorized: its page says authorized and awaiting shipment', async () => {
    await receive(delivery('evt_1', 'order_created', 1, 'authorized'));
    expect(saved()).toMatchObject({ status: 'authorized', fulfilledAt: null });
    const page = String(await orderPage(saved(), 'success'));
    expect(page).toMatch(/authorized for €34\.00, not charged yet: the order is awaiting shipment/);
    expect(page).not.toContain('Not paid');
    expect(page).not.toContain('fulfilled.');
  });

  it('is fulfilled when the capture is confirmed, and its page says so', async () => {
    await receive(delivery('evt_1', 'order_created', 1, 'authorized'));
    await receive(delivery('evt_2', 'order_updated', 2, 'paid'));
    expect(saved()).toMatchObject({ status: 'paid', fulfilledAt: expect.any(String) });
    expect(String(await orderPage(saved(), undefined))).toContain('Shipped and charged');
  });

  it('is fulfilled once both have come when the capture arrives first, never on the capture alone', async () => {
    await receive(delivery('evt_2', 'order_updated', 2, 'paid'));
    expect(saved()).toMatchObject({ status: 'paid', fulfilledAt: null });
    await receive(delivery('evt_1', 'order_created', 1, 'authorized'));
    expect(saved()).toMatchObject({ status: 'paid', appliedSequence: 2, fulfilledAt: expect.any(String) });
  });

  it('is never fulfilled when the hold is voided', async () => {
    await receive(delivery('evt_1', 'order_created', 1, 'authorized'));
    await receive(delivery('evt_2', 'order_cancelled', 2, 'cancelled'));
    expect(saved()).toMatchObject({ status: 'cancelled', fulfilledAt: null });
    expect(String(await orderPage(saved(), undefined))).toContain('Not paid: the last webhook says <strong>cancelled</strong>');
  });
});
