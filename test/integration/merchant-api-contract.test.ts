import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Order } from '../../core/orders/order-schema.js';
import { disputeWorkflowId } from '../../workflows/dispute/messages.js';
import { validCartRequest } from '../support/fixtures.js';
import { merchantApi, paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The merchant API's contract at its edges (docs/decisions/error-model.md: every error in the envelope,
 * a bad request a 4xx naming its field, 500 only for what we did not anticipate): dates PostgreSQL
 * cannot store, control characters, a filter that would filter nothing, and dispute answers repeated.
 */
describe('the merchant API at its edges', () => {
  const stack = useTestStack({ SANDBOX_DISPUTE_REVIEW_SECONDS: '1' });
  let merchant: CreatedMerchant;
  let api: ReturnType<typeof merchantApi>;

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Review Store' });
    api = merchantApi(stack, merchant.apiKey);
  });

  const errorOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as ErrorBody });

  describe('date filters that zod accepts but PostgreSQL cannot store: 400 naming the field, never 500', () => {
    // z.iso.datetime({offset: true}) takes year 0000 and a 9999 date whose offset carries it into year 10000;
    // new Date() then gives '0000-…' / '+010000-…', which PostgreSQL refuses (22008 / 22009) and onError makes a 500.
    it.each([
      ['/orders?createdFrom=0000-01-01T00:00:00Z', 'createdFrom'],
      ['/orders?createdTo=9999-12-31T23:00:00-05:00', 'createdTo'],
      ['/events?createdFrom=0001-01-01T00:00:00%2B01:00', 'createdFrom'],
      ['/events?createdTo=9999-12-31T23:00:00-05:00', 'createdTo'],
    ])('GET %s', async (path, field) => {
      const { status, body } = await errorOf(await api.get(path));
      expect({ status, code: body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(body.errors.map((e) => e.path)).toContain(field);
    });

    it('POST /payment-links with expiresAt in year 10000 once its offset is applied', async () => {
      const res = await api.post('/v2/merchant/payment-links', {
        cartObject: validCartRequest(merchant.platformUuid).cartObject,
        expiresAt: '9999-12-31T23:00:00-05:00',
      });
      const { status, body } = await errorOf(res);
      expect({ status, code: body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(body.errors.map((e) => e.path)).toContain('expiresAt');
    });
  });

  describe('a control character in the path or a query parameter: 400 naming where, never 500', () => {
    // Hono decodes %00 into the parameter; PostgreSQL refuses U+0000 in text (22021) and in jsonb (22P05).
    it.each([
      ['GET', '/v2/merchant/orders/abc%00def'],
      ['POST', '/v2/merchant/orders/abc%00def/refunds'],
      ['POST', '/v2/merchant/carts/abc%0Adef/expire'],
      ['POST', '/v2/merchant/events/evt_%00/replay'],
    ])('%s %s: VALIDATION_ERROR on path', async (method, path) => {
      const res = await fetch(`${stack.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify({ amount: 100 }) } : {}),
      });
      const { status, body } = await errorOf(res);
      expect({ status, code: body.code, paths: body.errors.map((e) => e.path) }).toEqual({ status: 400, code: 'VALIDATION_ERROR', paths: ['path'] });
    });

    it.each([
      ['/events?cartId=%00', 'cartId'],
      ['/orders?extraKey=orderRef&extraValue=a%00b', 'extraValue'],
      ['/orders?extraKey=a%1Fb&extraValue=x', 'extraKey'],
    ])('GET %s: VALIDATION_ERROR on %s', async (path, field) => {
      const { status, body } = await errorOf(await api.get(path));
      expect({ status, code: body.code, paths: body.errors.map((e) => e.path) }).toEqual({ status: 400, code: 'VALIDATION_ERROR', paths: [field] });
    });

    it('POST /webhook-endpoints with a NUL in the url: VALIDATION_ERROR on url', async () => {
      const { status, body } = await errorOf(
        await api.post('/v2/merchant/webhook-endpoints', { url: 'https://example.com/hooks\u0000', enabledEvents: ['*'] }),
      );
      expect({ status, code: body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(body.errors.map((e) => e.path)).toContain('url');
    });
  });

  it('GET /events with endpointId but no delivered: VALIDATION_ERROR on delivered, not every event', async () => {
    const { status, body } = await errorOf(await api.get('/events?endpointId=0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b'));
    expect({ status, code: body.code, paths: body.errors.map((e) => e.path) }).toEqual({ status: 400, code: 'VALIDATION_ERROR', paths: ['delivered'] });
  });

  describe('dispute answers (docs/api.md, Disputes: "A second, different answer, or one to a dispute no longer needing one, is 409 DISPUTE_NOT_OPEN")', () => {
    const evidence = (explanation: string) => ({
      kind: 'product_delivered',
      explanation,
      shippingCarrier: 'La Poste',
      shippingTrackingNumber: '6A12345678901',
    });

    /** A sandbox dispute of the paid order, once the ledger has it (the answer is refused before). */
    const disputed = async (cartId: string) => {
      expect((await api.post(`/v2/sandbox/carts/${cartId}/dispute`, {})).status).toBe(202);
      await waitFor(
        async () => {
          const order = (await (await api.get(`/orders/${cartId}`)).json()) as Order;
          return order.dispute?.status === 'needs_response' || undefined;
        },
        { timeoutMs: 20_000, what: 'the sandbox dispute in the ledger' },
      );
    };

    it('evidence again after the dispute was decided (its workflow closed): 409, not 500', { timeout: 60_000 }, async () => {
      const cartId = await paidCarts(stack, merchant).paidCart();
      await disputed(cartId);
      expect((await api.post(`/v2/merchant/orders/${cartId}/dispute/evidence`, evidence('Delivered, signed for.'))).status).toBe(202);
      const won = await waitFor(
        async () => {
          const order = (await (await api.get(`/orders/${cartId}`)).json()) as Order;
          return order.dispute?.status === 'won' ? order : undefined;
        },
        { timeoutMs: 30_000, what: 'the sandbox dispute won' },
      );
      // The dispute's workflow has ended: a signal to it now finds no running workflow.
      await stack.temporal.client.workflow.getHandle(disputeWorkflowId(won.dispute!.id)).result();

      const again = await errorOf(await api.post(`/v2/merchant/orders/${cartId}/dispute/evidence`, evidence('Delivered, signed for.')));
      expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'DISPUTE_NOT_OPEN' });
    });

    it('a second, different evidence while the first is on its way: 409, not a 202 that silently drops it', async () => {
      const cartId = await paidCarts(stack, merchant).paidCart();
      await disputed(cartId);
      expect((await api.post(`/v2/merchant/orders/${cartId}/dispute/evidence`, evidence('First version.'))).status).toBe(202);
      // The same evidence again is a repeat, told again.
      expect((await api.post(`/v2/merchant/orders/${cartId}/dispute/evidence`, evidence('First version.'))).status).toBe(202);
      const second = await api.post(`/v2/merchant/orders/${cartId}/dispute/evidence`, {
        ...evidence('Corrected version: another tracking number.'),
        shippingTrackingNumber: '6A00000000000',
      });
      // 202 here tells the merchant "your evidence is recorded and on its way" while the ledger keeps the first.
      expect(second.status).toBe(409);
    });
  });
});
