import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCartStatus } from '../../core/checkout/cart-ledger.js';
import { ProcessorUnavailableError, type PaymentProcessor, type RefundRequest } from '../../core/checkout/payment-processor.js';
import { createSandboxPaymentProcessor, SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Order, Refund } from '../../core/orders/order-schema.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { refundWorkflowId } from '../../workflows/refund/messages.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi, paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** validCartRequest's total: 2 × 1999 + 500. */
const CAPTURED = 4498;

describe('refunds through the merchant API: reserved in PostgreSQL, run in Temporal, announced by a signed order_refunded', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  let api: ReturnType<typeof merchantApi>;
  let carts: ReturnType<typeof paidCarts>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    merchant = await stack.createMerchant({ name: 'Refund Store', webhookUrl: receiver.url });
    api = merchantApi(stack, merchant.apiKey);
    carts = paidCarts(stack, merchant);
  });
  afterAll(() => receiver?.close());

  const order = async (cartId: string) => (await (await api.get(`/orders/${cartId}`)).json()) as Order;
  const refundRows = (cartId: string) =>
    stack.db<{ id: string; amount: string; status: string; failure_code: string | null }[]>`
      select id, amount, status, failure_code from refunds where cart_id = ${cartId} order by created_at`;

  /** The order_refunded events the receiver acknowledged for this cart, each verified over its raw bytes with the merchant's secret. */
  const refundEvents = (cartId: string): WebhookEventBody[] =>
    [...receiver.processed.values()].flatMap((request) => {
      const verified = verifyWebhook(request.rawBody, request.headers, merchant.webhookSecret);
      if (!verified.valid) throw new Error(`a webhook failed verification: ${verified.reason}`);
      return verified.event.event === 'order_refunded' && verified.event.data.cartId === cartId ? [verified.event] : [];
    });

  async function expectError(res: Response, status: number, code: string, path: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.code).toBe(code);
    expect(body.errors.map((e) => e.path)).toEqual([path]);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    return body;
  }

  it('refunds part, then the rest: the ledger moves to partially_refunded then refunded, each refund is one signed order_refunded', async () => {
    const cartId = await carts.paidCart();

    const first = await api.refund(cartId, { amount: 1000, reason: 'Damaged in transit' });
    expect(first.status).toBe(201);
    const refund = (await first.json()) as Refund;
    expect(refund).toEqual({
      id: expect.stringMatching(/^re_/) as unknown,
      cartId,
      amount: 1000,
      reason: 'Damaged in transit',
      status: 'succeeded',
      failureCode: null,
      createdAt: expect.any(String) as unknown,
    });
    expect(await order(cartId)).toMatchObject({ status: 'partially_refunded', refundedTotal: 1000, refunds: [refund] });

    const rest = (await (await api.refund(cartId, { amount: CAPTURED - 1000 })).json()) as Refund;
    expect(rest).toMatchObject({ status: 'succeeded', amount: CAPTURED - 1000, reason: null });
    expect(await order(cartId)).toMatchObject({ status: 'refunded', refundedTotal: CAPTURED });

    const events = await waitFor(
      () => {
        const received = refundEvents(cartId);
        return received.length === 2 ? received : undefined;
      },
      { what: 'two order_refunded deliveries' },
    );
    events.sort((a, b) => a.sequence - b.sequence);
    expect(events.map((e) => e.data.status)).toEqual(['partially_refunded', 'refunded']);
    expect(events.map((e) => e.data.refund)).toEqual([
      { id: refund.id, amount: 1000, refundedTotal: 1000, reason: 'Damaged in transit' },
      { id: rest.id, amount: CAPTURED - 1000, refundedTotal: CAPTURED, reason: null },
    ]);
    expect(events[0]).toMatchObject({ environment: 'sandbox', data: { cartId, amount: CAPTURED, currency: 'EUR', payment: { brand: 'visa', last4: '1111' } } });
    // After order_created (1) and order_updated processing (…), in order.
    expect(events[1]!.sequence).toBe(events[0]!.sequence + 1);

    const nothingLeft = await expectError(await api.refund(cartId, { amount: 1 }), 422, 'AMOUNT_EXCEEDS_REFUNDABLE', 'amount');
    expect(nothingLeft.message).toMatch(/Nothing remains refundable/);
    // A late duplicate of the session's own `paid` (an activity retry) does not take the refunds back.
    await recordCartStatus(stack.db, stack.config.keyring, { cartId, status: 'paid' });
    expect((await order(cartId)).status).toBe('refunded');

    // The workflow is the refund's own, and it finished.
    const handle = stack.temporal.client.workflow.getHandle(refundWorkflowId(refund.id));
    expect(await handle.result()).toEqual({ status: 'succeeded' });
  });

  it('never lets concurrent refunds exceed the captured amount', async () => {
    const cartId = await carts.paidCart();
    // 10 × 1000 asked at once of 4498: exactly four fit.
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.refund(cartId, { amount: 1000 })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 422, 422, 422, 422, 422, 422]);
    for (const refused of answers.filter((r) => r.status === 422)) {
      const body = (await refused.json()) as ErrorBody;
      expect(body).toMatchObject({
        code: 'AMOUNT_EXCEEDS_REFUNDABLE',
        errors: [{ path: 'amount', message: 'must be at most 498, what remains refundable on this order' }],
      });
    }
    const rows = await refundRows(cartId);
    expect(rows.map((r) => Number(r.amount)).reduce((a, b) => a + b, 0)).toBe(4000);
    await waitFor(async () => ((await order(cartId)).refundedTotal === 4000 ? true : undefined), { what: 'four refunds settled' });
    expect((await order(cartId)).status).toBe('partially_refunded');

    // Mixed amounts racing for what is left (498): at most what remains, whatever the interleaving.
    const racing = await Promise.all([300, 200, 198, 100].map((amount) => api.refund(cartId, { amount })));
    const granted = (await Promise.all(racing.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as Refund).amount))).reduce(
      (a, b) => a + b,
      0,
    );
    expect(granted).toBeLessThanOrEqual(498);
    expect(granted).toBeGreaterThanOrEqual(298);
    expect(racing.every((r) => r.status === 201 || r.status === 422)).toBe(true);
    const [ledger] = await stack.db<{ refunded_amount: string }[]>`select refunded_amount from carts where cart_id = ${cartId}`;
    await waitFor(async () => ((await order(cartId)).refundedTotal === 4000 + granted ? true : undefined), { what: 'the racing refunds settled' });
    expect(Number(ledger!.refunded_amount)).toBeLessThanOrEqual(CAPTURED);
  });

  it('sends order_refunded in settlement order: sequence, refundedTotal and status never go backwards, whichever refund records first', async () => {
    const cartId = await carts.paidCart();
    const before = receiver.requests.length;
    // The 1000 refund settles first; its event cannot be recorded until the other refund's is, as when its
    // workflow is slower to get there. Before, it then took a later sequence with a smaller refundedTotal.
    const seq = `refund_order_${cartId.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
    await stack.db.unsafe(`
      create sequence ${seq};
      create function ${seq}() returns trigger language plpgsql as $$
      begin
        if new.cart_id = '${cartId}' and new.event = 'order_refunded' and new.payload->'data'->'refund'->>'amount' = '1000'
           and not exists (select 1 from webhook_events e where e.cart_id = new.cart_id and e.event = 'order_refunded') then
          perform nextval('${seq}');
          raise exception 'test: the 1000 refund records after the other one';
        end if;
        return new;
      end $$;
      create trigger ${seq} before insert on webhook_events for each row execute function ${seq}();`);
    try {
      const first = api.refund(cartId, { amount: 1000 });
      await waitFor(async () => ((await stack.db.unsafe(`select is_called from ${seq}`))[0]?.is_called ? true : undefined), {
        what: 'the 1000 refund held back',
      });
      expect((await api.refund(cartId, { amount: CAPTURED - 1000 })).status).toBe(201);
      expect((await first).status).toBe(201);
    } finally {
      await stack.db.unsafe(`drop trigger ${seq} on webhook_events; drop function ${seq}(); drop sequence ${seq};`);
    }

    const arrived = await waitFor(
      () => {
        const received = refundEvents(cartId);
        return received.length === 2 ? received : undefined;
      },
      { what: 'both order_refunded deliveries' },
    );
    // Every order a receiver can see: as they arrived, and as applied by sequence.
    const inArrivalOrder = receiver.requests
      .slice(before)
      .flatMap((r) => arrived.filter((e) => e.id === r.headers['webhook-id']))
      .filter((e, i, all) => all.findIndex((x) => x.id === e.id) === i);
    for (const events of [inArrivalOrder, [...arrived].sort((a, b) => a.sequence - b.sequence)]) {
      expect(events.map((e) => [e.data.status, e.data.refund?.refundedTotal])).toEqual([
        ['partially_refunded', CAPTURED - 1000],
        ['refunded', CAPTURED],
      ]);
      expect(events[1]!.sequence).toBeGreaterThan(events[0]!.sequence);
    }
    expect(await order(cartId)).toMatchObject({ status: 'refunded', refundedTotal: CAPTURED });
  });

  it('returns the same refund for a retried Idempotency-Key, even concurrently, and refuses the key with another request', async () => {
    const cartId = await carts.paidCart();
    const key = `refund-${cartId}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.refund(cartId, { amount: 700, reason: 'Late' }, { 'Idempotency-Key': key })));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as Refund).id)));
    expect(ids.size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect(await refundRows(cartId)).toHaveLength(1);

    await waitFor(async () => ((await order(cartId)).refundedTotal === 700 ? true : undefined), { what: 'the refund settled' });
    const retried = await api.refund(cartId, { reason: 'Late', amount: 700 }, { 'Idempotency-Key': key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await retried.json()).toMatchObject({ id: [...ids][0], status: 'succeeded' });

    await expectError(await api.refund(cartId, { amount: 701, reason: 'Late' }, { 'Idempotency-Key': key }), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    const otherCart = await carts.paidCart();
    await expectError(await api.refund(otherCart, { amount: 700, reason: 'Late' }, { 'Idempotency-Key': key }), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    await expectError(await api.refund(cartId, { amount: 700 }, { 'Idempotency-Key': 'short' }), 400, 'VALIDATION_ERROR', 'Idempotency-Key');
    expect(await refundRows(cartId)).toHaveLength(1);
    expect(await refundRows(otherCart)).toHaveLength(0);
  });

  it(`fails the sandbox's declined refund (${SANDBOX_REFUND_DECLINED_AMOUNT}) with its code, releases the reservation and sends no order_refunded`, async () => {
    const cartId = await carts.paidCart();
    const res = await api.refund(cartId, { amount: SANDBOX_REFUND_DECLINED_AMOUNT });
    expect(res.status).toBe(201);
    const declined = (await res.json()) as Refund;
    expect(declined).toMatchObject({ status: 'failed', failureCode: 'refund_declined', amount: SANDBOX_REFUND_DECLINED_AMOUNT });
    expect(await order(cartId)).toMatchObject({ status: 'paid', refundedTotal: 0, refunds: [declined] });

    // Released: the whole captured amount can still be refunded.
    const full = (await (await api.refund(cartId, { amount: CAPTURED })).json()) as Refund;
    expect(full.status).toBe('succeeded');
    await waitFor(() => (refundEvents(cartId).length === 1 ? true : undefined), { what: 'the full refund’s event' });
    expect(refundEvents(cartId).map((e) => e.data.refund?.id)).toEqual([full.id]);
    expect((await refundRows(cartId)).map((r) => [r.status, r.failure_code])).toEqual([
      ['failed', 'refund_declined'],
      ['succeeded', null],
    ]);
  });

  it('refuses, in the documented envelope naming the field: unpaid and unknown orders, another merchant’s, bad amounts and reasons', async () => {
    const unpaid = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const notPaid = await expectError(await api.refund(unpaid, { amount: 100 }), 409, 'ORDER_NOT_PAID', 'cartId');
    expect(notPaid.message).toMatch(/pending, not paid/);
    await expectError(await api.refund('nosuchcartnosuchcart0000', { amount: 100 }), 404, 'NOT_FOUND', 'cartId');
    // Paid in the ledger, its order_created not recorded yet: a refund's event must not overtake it.
    const recording = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    await recordCartStatus(stack.db, stack.config.keyring, { cartId: recording, status: 'paid' });
    const early = await expectError(await api.refund(recording, { amount: 100 }), 409, 'ORDER_NOT_PAID', 'cartId');
    expect(early.message).toMatch(/still being recorded/);

    const cartId = await carts.paidCart();
    const other = await stack.createMerchant({ name: 'Other Store' });
    await expectError(await merchantApi(stack, other.apiKey).refund(cartId, { amount: 100 }), 404, 'NOT_FOUND', 'cartId');

    for (const amount of [0, -5, 10.5, '100', null]) {
      const body = await expectError(await api.refund(cartId, { amount }), 400, 'VALIDATION_ERROR', 'amount');
      expect(body.errors[0]!.message).toMatch(/minor units|is required|must be/);
    }
    await expectError(await api.refund(cartId, {}), 400, 'VALIDATION_ERROR', 'amount');
    await expectError(await api.refund(cartId, { amount: 100, reason: 'x'.repeat(501) }), 400, 'VALIDATION_ERROR', 'reason');
    await expectError(await api.refund(cartId, { amount: 100, note: 'x' }), 400, 'VALIDATION_ERROR', 'note');
    await expectError(await api.refund(cartId, { amount: CAPTURED + 1 }), 422, 'AMOUNT_EXCEEDS_REFUNDABLE', 'amount');
    expect((await api.refund(cartId, '{"amount":')).status).toBe(400);
    const unauthenticated = await fetch(`${stack.apiUrl}/v2/merchant/orders/${cartId}/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":100}',
    });
    expect(unauthenticated.status).toBe(401);
    expect(await refundRows(cartId)).toHaveLength(0);
    expect(await refundRows(unpaid)).toHaveLength(0);
  });
});

describe('a refund the processor does not answer at first', () => {
  const sandbox = createSandboxPaymentProcessor('sandbox');
  const refundCalls: RefundRequest[] = [];
  // The first three refund requests get no answer (the outcome is unknown): retried 1 + 2 + 4 s apart, the fourth is answered after the API stopped waiting.
  const flaky: PaymentProcessor = {
    ...sandbox,
    name: 'flaky-refunds',
    refund(request) {
      refundCalls.push(request);
      if (refundCalls.length <= 3) return Promise.reject(new ProcessorUnavailableError('no answer'));
      return sandbox.refund(request);
    },
  };
  const stack = useTestStack({}, { paymentProcessor: flaky });

  it('stays pending with its amount reserved, is asked again under the same key, and succeeds once', async () => {
    const merchant = await stack.createMerchant({ name: 'Flaky Store' });
    const api = merchantApi(stack, merchant.apiKey);
    const cartId = await paidCarts(stack, merchant).paidCart();

    const res = await api.refund(cartId, { amount: 4000 });
    expect(res.status).toBe(201);
    const refund = (await res.json()) as Refund;
    expect(refund.status).toBe('pending');
    // Meanwhile the reservation holds: only what is left beyond it can be asked for.
    const refused = (await (await api.refund(cartId, { amount: 499 })).json()) as ErrorBody;
    expect(refused).toMatchObject({
      code: 'AMOUNT_EXCEEDS_REFUNDABLE',
      errors: [{ path: 'amount', message: 'must be at most 498, what remains refundable on this order' }],
    });

    const settled = await waitFor(
      async () => {
        const order = (await (await api.get(`/orders/${cartId}`)).json()) as Order;
        return order.refunds[0]?.status === 'succeeded' ? order : undefined;
      },
      { what: 'the refund to succeed', timeoutMs: 30_000 },
    );
    expect(settled).toMatchObject({ status: 'partially_refunded', refundedTotal: 4000 });
    expect(refundCalls.map((r) => r.idempotencyKey)).toEqual([refund.id, refund.id, refund.id, refund.id]);
    const recorded = () =>
      stack.db<{ id: string }[]>`select payload->'data'->'refund'->>'id' as id from webhook_events where cart_id = ${cartId} and event = 'order_refunded'`;
    await waitFor(async () => ((await recorded()).length > 0 ? true : undefined), { what: 'order_refunded recorded' });
    expect((await recorded()).map((e) => e.id)).toEqual([refund.id]);
  });
});
