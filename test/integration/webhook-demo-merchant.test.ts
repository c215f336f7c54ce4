import { describe, expect, it } from 'vitest';
import { createWebhookEventActivities } from '../../activities/webhooks/record-event.js';
import { freePort } from '../../scripts/free-port.js';
import { startDemoMerchantReceiver } from '../../scripts/demo-merchant.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

describe('the demo merchant npm start runs', () => {
  const stack = useTestStack();

  it('verifies, acknowledges and logs each event once, and rejects a forged one', async () => {
    const port = await freePort();
    const merchant = await stack.createMerchant({ webhookUrl: `http://127.0.0.1:${port}/webhooks` });
    const lines: string[] = [];
    const receiver = await startDemoMerchantReceiver({ port, secret: merchant.webhookSecret, log: (line) => lines.push(line) });
    try {
      const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
      const { eventId } = await createWebhookEventActivities({
        config: stack.config,
        db: stack.db,
        temporalClient: () => stack.temporal.client,
      }).recordCartEvent({
        cartId,
        event: 'order_cancelled',
        status: 'cancelled',
      });
      await waitFor(() => lines.find((l) => l.includes(`order_cancelled #1 for cart ${cartId}`)), { what: 'the demo merchant log line' });
      expect(lines.at(-1)).toContain('{"orderRef":"order-42"}');

      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        body: '{}',
      });
      expect(forged.status).toBe(400);
      expect(lines.at(-1)).toContain('rejected a webhook');
    } finally {
      await receiver.close();
    }
  });
});
