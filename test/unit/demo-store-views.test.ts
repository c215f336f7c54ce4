import { describe, expect, it } from 'vitest';
import type { StoreOrder } from '../../demo-store/order-store.js';
import { orderPage } from '../../demo-store/views.js';

describe("the demo store's pages", () => {
  it('escape what webhooks and the API said, however hostile', async () => {
    const hostile = '<script>alert(1)</script>"\'&';
    const order: StoreOrder = {
      id: 'ord_1',
      createdAt: '2030-01-01T00:00:00.000Z',
      currency: 'EUR',
      items: [{ productId: 'notebook', title: hostile, price: 1500, quantity: 1 }],
      total: 1500,
      cartId: hostile,
      earlierCartIds: [hostile],
      checkoutError: null,
      status: hostile,
      appliedSequence: 2,
      fulfilledAt: null,
      refundedTotal: 0,
      refunds: [{ idempotencyKey: 'k', refundId: hostile, amount: 100, reason: hostile, status: hostile, requestedAt: hostile, confirmedAt: null }],
      webhooks: [
        {
          eventId: hostile,
          event: hostile,
          sequence: null,
          verified: false,
          status: hostile,
          receivedAt: hostile,
          deliveries: 1,
          note: hostile,
          refundId: null,
          cartId: hostile,
        },
      ],
    };
    const page = String(await orderPage(order, hostile, hostile));
    expect(page).not.toContain('<script>');
    expect(page).not.toContain(hostile);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;');
  });
});
