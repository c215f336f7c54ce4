import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisputeEvidence } from '../../core/checkout/dispute-evidence.js';
import { DisputeAnswerRefusedError, type PaymentProcessor, type RefundRequest, type VoidRequest } from '../../core/checkout/payment-processor.js';
import { createSandboxPaymentProcessor, SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { createApiKey } from '../../core/merchants/api-keys.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Order } from '../../core/orders/order-schema.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { startCartSession } from '../../workflows/cart-session/client.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { disputeWorkflowId } from '../../workflows/dispute/messages.js';
import { lateOutcomeWorkflowId } from '../../workflows/late-outcome/messages.js';
import { findLeaks, findLeaksInDatabase } from '../support/leak-scan.js';
import { merchantApi, paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const STRIPE_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
/** A sandbox dispute is due this long after it opens; its one reminder comes REMINDER_BEFORE_MS before that. */
const RESPONSE_SECONDS = 8;
const REMINDER_BEFORE_MS = 5_000;

/** The merchant's answers the processor received: what the dispute activity sent out. */
const answers: Array<{ disputeId: string; evidence?: DisputeEvidence; accepted?: true }> = [];
/** The voids and refunds of payments only Stripe's events told us of (LATE_PAYMENT ids), which the sandbox never made. */
const LATE_PAYMENT = 'pi_late_';
const lateCalls: Array<VoidRequest | RefundRequest> = [];
/** Disputes whose answers the processor refuses, as Stripe does one past its deadline. */
const REFUSED_DISPUTE = 'dp_refused_';
const sandbox = createSandboxPaymentProcessor('sandbox');
const recordingProcessor: PaymentProcessor = {
  ...sandbox,
  name: sandbox.name,
  submitDisputeEvidence: (request) => {
    answers.push(request);
    if (request.disputeId.startsWith(REFUSED_DISPUTE)) return Promise.reject(new DisputeAnswerRefusedError('stripe refused the dispute answer: test'));
    return sandbox.submitDisputeEvidence!(request);
  },
  acceptDispute: (request) => (answers.push({ ...request, accepted: true }), sandbox.acceptDispute!(request)),
  void: (request) => (request.chargeId?.startsWith(LATE_PAYMENT) ? (lateCalls.push(request), Promise.resolve()) : sandbox.void(request)),
  refund: (request) =>
    request.chargeId.startsWith(LATE_PAYMENT)
      ? (lateCalls.push(request), Promise.resolve({ outcome: 'refunded' as const, refundId: `re_${request.chargeId}` }))
      : sandbox.refund(request),
};

const EVIDENCE: DisputeEvidence = {
  kind: 'product_delivered',
  explanation: 'Delivered on 3 March to Ada Zyxwvut-Evidence, who signed for it.',
  customerName: 'Ada Zyxwvut-Evidence',
  shippingCarrier: 'La Poste',
  shippingTrackingNumber: '6A99887766554',
};

describe('disputes: Stripe’s signed events in, the dispute as a workflow, the merchant’s answer out', () => {
  const logLines: string[] = [];
  const stack = useTestStack(
    {
      STRIPE_WEBHOOK_SECRET: STRIPE_SECRET,
      SANDBOX_DISPUTE_RESPONSE_SECONDS: String(RESPONSE_SECONDS),
      SANDBOX_DISPUTE_REVIEW_SECONDS: '1',
      DISPUTE_REMINDERS_BEFORE_MS: String(REMINDER_BEFORE_MS),
      WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500',
      // The evidence's absence from the logs means something only where the dispute's own lines are written.
      LOG_LEVEL: 'info',
    },
    { paymentProcessor: recordingProcessor, logDestination: { write: (line: string) => void logLines.push(line) } },
  );
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  let api: ReturnType<typeof merchantApi>;
  let carts: ReturnType<typeof paidCarts>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    merchant = await stack.createMerchant({ name: 'Dispute Store', webhookUrl: receiver.url });
    api = merchantApi(stack, merchant.apiKey);
    carts = paidCarts(stack, merchant);
  });
  afterAll(() => receiver?.close());

  const auditRow = async (id: string | null) => {
    expect(id, 'the answer names its audit entry (Audit-Entry-Id)').toBeTruthy();
    return (await stack.db<Record<string, unknown>[]>`select * from audit_log where id = ${id}`)[0];
  };
  const order = async (cartId: string) => (await (await api.get(`/orders/${cartId}`)).json()) as Order;
  const post = (path: string, body: unknown) =>
    fetch(`${stack.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** The cart's events the receiver acknowledged, each verified over its raw bytes, in the order received. */
  const eventsOf = (cartId: string): WebhookEventBody[] =>
    [...receiver.processed.values()].flatMap((request) => {
      const verified = verifyWebhook(request.rawBody, request.headers, merchant.webhookSecret);
      if (!verified.valid) throw new Error(`a webhook failed verification: ${verified.reason}`);
      return verified.event.data.cartId === cartId ? [verified.event] : [];
    });
  const disputeEvents = (cartId: string) => eventsOf(cartId).filter((e) => e.event === 'order_disputed' || e.data.dispute);
  const waitForEvent = (cartId: string, what: string, match: (e: WebhookEventBody) => boolean) =>
    waitFor(() => eventsOf(cartId).find(match), { timeoutMs: 20_000, what });

  /** A Stripe event about a dispute, as Stripe sends it; signed with the test-header helper of the `stripe` library. */
  const stripeEvent = (type: string, dispute: Record<string, unknown>, id = `evt_${randomBytes(12).toString('hex')}`) =>
    JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object: { object: 'dispute', ...dispute } } });
  const sendStripe = (payload: string, signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET })) =>
    fetch(`${stack.apiUrl}/processor-events/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
  const rejectedCount = async () => {
    const res = await fetch(`${stack.apiUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } });
    // A refused scrape must fail here, not read as a count of 0.
    expect(res.status).toBe(200);
    return Number(/checkout_processor_events_total\{processor="stripe",outcome="rejected"\} (\d+)/.exec(await res.text())?.[1] ?? 0);
  };

  it('takes a Stripe-signed dispute once: order_disputed, the order’s dispute; the same event again acts not again; won reaches the merchant', async () => {
    const cartId = await carts.paidCart();
    const [row] = await stack.db<{ payment_reference: string }[]>`select payment_reference from carts where cart_id = ${cartId}`;
    const disputeId = `dp_${randomBytes(8).toString('hex')}`;
    const dueBy = Math.floor(Date.now() / 1000) + 7 * 24 * 3600;
    const dispute = {
      id: disputeId,
      amount: 4498,
      currency: 'eur',
      reason: 'product_not_received',
      payment_intent: row!.payment_reference,
      evidence_details: { due_by: dueBy },
    };
    const created = stripeEvent('charge.dispute.created', { ...dispute, status: 'needs_response' });

    const first = await sendStripe(created);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    const again = await sendStripe(created);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });

    const opened = await waitForEvent(cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    expect(opened.data.dispute).toEqual({
      id: disputeId,
      amount: 4498,
      reason: 'product_not_received',
      status: 'needs_response',
      evidenceDueBy: new Date(dueBy * 1000).toISOString(),
    });
    expect((await order(cartId)).dispute).toMatchObject({ id: disputeId, status: 'needs_response' });

    await sendStripe(stripeEvent('charge.dispute.closed', { ...dispute, status: 'won' }));
    const won = await waitForEvent(cartId, 'order_updated won', (e) => e.event === 'order_updated' && e.data.dispute?.status === 'won');
    expect(won.data.status).toBe('paid');
    expect((await stack.temporal.client.workflow.getHandle(disputeWorkflowId(disputeId)).result()) as string).toBe('won');
    expect(disputeEvents(cartId).map((e) => [e.event, e.data.dispute?.status])).toEqual([
      ['order_disputed', 'needs_response'],
      ['order_updated', 'won'],
    ]);
    const stored = await stack.db<{ id: string }[]>`select id from processor_events where object_id = ${disputeId}`;
    expect(stored).toHaveLength(2);
  });

  /** A Stripe dispute of a new paid order, opened, its evidence due `dueInSeconds` from now (negative: already past). */
  async function openStripeDispute(idPrefix: string, dueInSeconds: number) {
    const cartId = await carts.paidCart();
    const [row] = await stack.db<{ payment_reference: string }[]>`select payment_reference from carts where cart_id = ${cartId}`;
    const dispute = {
      id: `${idPrefix}${randomBytes(8).toString('hex')}`,
      amount: 4498,
      currency: 'eur',
      reason: 'product_not_received',
      payment_intent: row!.payment_reference,
      evidence_details: { due_by: Math.floor(Date.now() / 1000) + dueInSeconds },
    };
    expect((await sendStripe(stripeEvent('charge.dispute.created', { ...dispute, status: 'needs_response' }))).status).toBe(200);
    await waitForEvent(cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    return { cartId, dispute };
  }

  it('refuses an answer once the evidence is due: 409 naming the deadline, nothing sent to the processor', async () => {
    const { cartId, dispute } = await openStripeDispute('dp_late_', -60);
    const late = await post(`/v2/merchant/orders/${cartId}/dispute/evidence`, EVIDENCE);
    expect(late.status).toBe(409);
    const body = (await late.json()) as ErrorBody;
    expect(body.code).toBe('DISPUTE_NOT_OPEN');
    expect(body.message).toContain('evidence was due by');
    expect((await post(`/v2/merchant/orders/${cartId}/dispute/accept`, {})).status).toBe(409);
    expect(answers.filter((a) => a.disputeId === dispute.id)).toEqual([]);
  });

  it(
    'an answer the processor refuses is not asked again, and the dispute goes on to its decision: lost reaches the merchant',
    { timeout: 30_000 },
    async () => {
      const { cartId, dispute } = await openStripeDispute(REFUSED_DISPUTE, 7 * 24 * 3600);
      expect((await post(`/v2/merchant/orders/${cartId}/dispute/evidence`, EVIDENCE)).status).toBe(202);
      await waitFor(() => answers.some((a) => a.disputeId === dispute.id), { timeoutMs: 10_000, what: 'the answer sent to the processor' });
      const handle = stack.temporal.client.workflow.getHandle(disputeWorkflowId(dispute.id));
      // The refusal reaches the workflow before the processor's decision does.
      await waitFor(async () => (await handle.fetchHistory()).events?.some((e) => e.activityTaskFailedEventAttributes) || undefined, {
        timeoutMs: 10_000,
        what: 'the refused answer in the dispute’s history',
      });
      await sendStripe(stripeEvent('charge.dispute.closed', { ...dispute, status: 'lost' }));
      const lost = await waitForEvent(cartId, 'order_updated lost', (e) => e.event === 'order_updated' && e.data.dispute?.status === 'lost');
      expect(lost.data.dispute?.id).toBe(dispute.id);
      expect((await handle.result()) as string).toBe('lost');
      expect(answers.filter((a) => a.disputeId === dispute.id)).toHaveLength(1);
    },
  );

  it('takes a Stripe dispute of an ISK order in ISO minor units: Stripe reports it in hundredths, order_disputed in krónur', async () => {
    const session = await carts.driver.verifiedSession({ currency: 'ISK' });
    expect((await carts.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    const { amount } = await order(session.cartId);
    const [row] = await stack.db<{ payment_reference: string }[]>`select payment_reference from carts where cart_id = ${session.cartId}`;
    const disputeId = `dp_${randomBytes(8).toString('hex')}`;
    const dueBy = Math.floor(Date.now() / 1000) + 7 * 24 * 3600;
    await sendStripe(
      stripeEvent('charge.dispute.created', {
        id: disputeId,
        amount: amount * 100,
        currency: 'isk',
        reason: 'fraudulent',
        status: 'needs_response',
        payment_intent: row!.payment_reference,
        evidence_details: { due_by: dueBy },
      }),
    );
    const opened = await waitForEvent(session.cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    expect(opened.data.dispute).toMatchObject({ id: disputeId, amount });
    expect((await order(session.cartId)).dispute).toMatchObject({ id: disputeId, amount });
  });

  it('refuses a wrong signature, a stale timestamp and no signature with 400 in the envelope, counted and never acted on', async () => {
    const cartId = await carts.paidCart();
    const [row] = await stack.db<{ payment_reference: string }[]>`select payment_reference from carts where cart_id = ${cartId}`;
    const disputeId = `dp_${randomBytes(8).toString('hex')}`;
    const payload = stripeEvent('charge.dispute.created', {
      id: disputeId,
      amount: 4498,
      reason: 'fraudulent',
      status: 'needs_response',
      payment_intent: row!.payment_reference,
      evidence_details: { due_by: Math.floor(Date.now() / 1000) + 3600 },
    });
    const before = await rejectedCount();

    const forged = await sendStripe(payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_the_endpoint_secret' }));
    const stale = await sendStripe(
      payload,
      Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET, timestamp: Math.floor(Date.now() / 1000) - 301 }),
    );
    const tampered = await sendStripe(payload.replace('fraudulent', 'general'), Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET }));
    const unsigned = await fetch(`${stack.apiUrl}/processor-events/stripe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
    for (const res of [forged, stale, tampered, unsigned]) {
      const body = (await res.json()) as ErrorBody;
      expect(res.status).toBe(400);
      expect(body.code).toBe('INVALID_SIGNATURE');
      expect(body.requestId).toBe(res.headers.get('x-request-id'));
    }
    expect(await rejectedCount()).toBe(before + 4);
    expect(await stack.db`select 1 from processor_events where object_id = ${disputeId}`).toHaveLength(0);
    expect(await stack.db`select 1 from disputes where id = ${disputeId}`).toHaveLength(0);
    expect((await order(cartId)).dispute).toBeNull();
  });

  it('answers an unknown type 200 and ignores it', async () => {
    const payload = JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      type: 'customer.created',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'cus_123', object: 'customer' } },
    });
    const res = await sendStripe(payload);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, ignored: true });
    expect(await stack.db<{ outcome: string }[]>`select outcome from processor_events where object_id = 'cus_123'`).toEqual([{ outcome: 'ignored' }]);
  });

  it('sandbox dispute: order_disputed, a reminder before evidenceDueBy, evidence through the API to the processor, then won', { timeout: 60_000 }, async () => {
    const cartId = await carts.paidCart();
    const opened = await post(`/v2/sandbox/carts/${cartId}/dispute`, { reason: 'product_not_received' });
    expect(opened.status).toBe(202);

    const disputed = await waitForEvent(cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    const dispute = disputed.data.dispute!;
    expect(dispute).toMatchObject({ amount: 4498, reason: 'product_not_received', status: 'needs_response' });
    expect(dispute.id).toMatch(/^dp_sandbox_/);

    const reminder = await waitForEvent(cartId, 'the reminder', (e) => e.data.dispute?.reminder === 1);
    expect(reminder.event).toBe('order_updated');
    expect(reminder.data.dispute).toMatchObject({ status: 'needs_response', reminder: 1 });
    expect(Date.parse(reminder.createdAt)).toBeLessThan(Date.parse(dispute.evidenceDueBy));

    const answered = await post(`/v2/merchant/orders/${cartId}/dispute/evidence`, EVIDENCE);
    expect(answered.status).toBe(202);
    expect(((await answered.json()) as Order).dispute?.id).toBe(dispute.id);
    // Audited like every change the API makes: the key, the order, the evidence's kind, never its text (the leak scan below covers audit_log).
    expect(await auditRow(answered.headers.get('audit-entry-id'))).toMatchObject({
      action: 'dispute.evidence',
      actor_type: 'api_key',
      target: `order:${cartId}`,
      after: { kind: EVIDENCE.kind },
    });
    await waitForEvent(cartId, 'under_review', (e) => e.data.dispute?.status === 'under_review');
    expect(answers.filter((a) => a.disputeId === dispute.id)).toEqual([{ disputeId: dispute.id, evidence: EVIDENCE }]);
    const won = await waitForEvent(cartId, 'won', (e) => e.data.dispute?.status === 'won');
    expect(won.event).toBe('order_updated');
    expect((await order(cartId)).dispute?.status).toBe('won');

    const second = await post(`/v2/merchant/orders/${cartId}/dispute/accept`, {});
    expect(second.status).toBe(409);
    expect(((await second.json()) as ErrorBody).code).toBe('DISPUTE_NOT_OPEN');

    // The evidence is customer data: sealed in the ledger, in clear nowhere in the database, the logs or the workflow's raw history.
    const evidenceValues = [EVIDENCE.customerName!, EVIDENCE.shippingTrackingNumber!, EVIDENCE.explanation];
    expect(await stack.db`select 1 from disputes where id = ${dispute.id} and evidence_sealed is not null`).toHaveLength(1);
    expect(await findLeaksInDatabase(stack.db, 'db', evidenceValues)).toEqual([]);
    expect(findLeaks('logs', logLines.join(''), evidenceValues)).toEqual([]);
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const history = proto.api.history.v1.History.fromObject(await plain.workflow.getHandle(disputeWorkflowId(dispute.id)).fetchHistory());
    const raw = Buffer.from(proto.api.history.v1.History.encode(history).finish()).toString('latin1');
    expect(findLeaks('history', raw, evidenceValues)).toEqual([]);
    expect(
      logLines.some((line) => line.includes(dispute.id)),
      'the logs do say which dispute was answered',
    ).toBe(true);
  });

  it('sandbox dispute accepted: the processor is told, and lost reaches the merchant', { timeout: 30_000 }, async () => {
    const cartId = await carts.paidCart();
    expect((await post(`/v2/sandbox/carts/${cartId}/dispute`, {})).status).toBe(202);
    const disputed = await waitForEvent(cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    expect(disputed.data.dispute?.reason).toBe('fraudulent');
    // Answering a dispute is a change: a read key is refused both answers, and nothing reaches the processor.
    const reader = (await createApiKey(stack.db, merchant.platformUuid, { name: 'Dispute reader', scope: 'read' })).apiKey;
    for (const [path, body] of [
      ['evidence', EVIDENCE],
      ['accept', {}],
    ] as const) {
      const refused = await fetch(`${stack.apiUrl}/v2/merchant/orders/${cartId}/dispute/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as ErrorBody).code).toBe('FORBIDDEN');
      expect(refused.headers.get('audit-entry-id')).toBeNull();
    }
    const accepted = await post(`/v2/merchant/orders/${cartId}/dispute/accept`, {});
    expect(accepted.status).toBe(202);
    expect(await auditRow(accepted.headers.get('audit-entry-id'))).toMatchObject({
      action: 'dispute.accept',
      actor_type: 'api_key',
      target: `order:${cartId}`,
      after: null,
    });
    const lost = await waitForEvent(cartId, 'lost', (e) => e.data.dispute?.status === 'lost');
    expect(lost.event).toBe('order_updated');
    expect(answers.filter((a) => a.disputeId === disputed.data.dispute!.id)).toEqual([{ disputeId: disputed.data.dispute!.id, accepted: true }]);
  });

  it('the sandbox dispute card pays, then its order is disputed: order_created first, then order_disputed, once', { timeout: 60_000 }, async () => {
    const session = await carts.driver.verifiedSession();
    expect((await carts.driver.pay(session, SANDBOX_CARDS.disputed)).status).toBe('paid');
    const disputed = await waitForEvent(session.cartId, 'order_disputed', (e) => e.event === 'order_disputed');
    expect(disputed.data.dispute).toMatchObject({ id: `dp_sandbox_${session.cartId}`, amount: 4498, reason: 'fraudulent', status: 'needs_response' });
    expect(
      eventsOf(session.cartId)
        .map((e) => e.event)
        .slice(0, 2),
    ).toEqual(['order_created', 'order_disputed']);
    expect(eventsOf(session.cartId).filter((e) => e.event === 'order_disputed')).toHaveLength(1);
  });

  it('refuses the sandbox helper on an unpaid or unknown order, and an answer to an order without a dispute', async () => {
    const unknown = await post('/v2/sandbox/carts/AAAAAAAAAAAAAAAAAAAAAAAA/dispute', {});
    expect(unknown.status).toBe(404);
    const cartId = await carts.paidCart();
    const noDispute = await post(`/v2/merchant/orders/${cartId}/dispute/evidence`, EVIDENCE);
    expect(noDispute.status).toBe(409);
    expect(((await noDispute.json()) as ErrorBody).code).toBe('DISPUTE_NOT_OPEN');
    const badKind = await post(`/v2/merchant/orders/${cartId}/dispute/evidence`, { ...EVIDENCE, kind: 'vibes' });
    expect(badKind.status).toBe(400);
  });

  /** A cart abandoned for real: its session restarted with a lifetime of a second and a half, which its own timer ends. */
  async function abandonedCart(): Promise<string> {
    const session = await carts.driver.createSession();
    await session.handle.terminate('replaced by a short-lived session');
    const handle = await startCartSession(stack.temporal.client, {
      taskQueue: stack.config.temporal.taskQueue,
      input: {
        cartId: session.cartId,
        platformUuid: merchant.platformUuid,
        storeName: 'Dispute Store',
        amount: 4498,
        currency: 'EUR',
        expiresOn: new Date(Date.now() + 1_500).toISOString(),
        lifetimeMs: 1_500,
        paymentResolutionMs: stack.config.paymentResolutionMs,
      },
      storeName: 'Dispute Store',
      workflowId: `${cartWorkflowId(session.cartId)}-short`,
    });
    expect(await handle.result()).toEqual({ status: 'abandoned' });
    return session.cartId;
  }
  const intentEvent = (type: string, intent: Record<string, unknown>) =>
    JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object: { object: 'payment_intent', ...intent } },
    });
  const lateResult = async (payload: string) =>
    stack.temporal.client.workflow.getHandle(lateOutcomeWorkflowId('stripe', (JSON.parse(payload) as { id: string }).id)).result() as Promise<string>;

  it('a refund Stripe fails after it succeeded: the refund fails, the order is paid again, order_updated says so, once', { timeout: 30_000 }, async () => {
    const cartId = await carts.paidCart();
    const { amount } = await order(cartId);
    const refunded = await api.refund(cartId, { amount, reason: 'Returned' });
    expect(refunded.status).toBe(201);
    const refund = (await refunded.json()) as { id: string; status: string };
    expect(refund.status).toBe('succeeded');
    await waitForEvent(cartId, 'order_refunded', (e) => e.event === 'order_refunded');
    expect((await order(cartId)).status).toBe('refunded');
    const [stored] = await stack.db<{ processor_refund_id: string }[]>`select processor_refund_id from refunds where id = ${refund.id}`;
    const refundEvent = (type: string, id?: string) =>
      JSON.stringify({
        id: id ?? `evt_${randomBytes(12).toString('hex')}`,
        object: 'event',
        type,
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { object: 'refund', id: stored!.processor_refund_id, amount, status: 'failed', failure_reason: 'expired_or_canceled_card' } },
      });

    const failed = refundEvent('charge.refund.updated');
    const first = await sendStripe(failed);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    expect(await (await sendStripe(failed)).json()).toEqual({ received: true, duplicate: true });

    const updated = await waitForEvent(cartId, 'order_updated with the failed refund', (e) => e.event === 'order_updated' && e.data.refund !== undefined);
    expect(updated.data).toMatchObject({
      status: 'paid',
      refundedTotal: 0,
      refund: { id: refund.id, amount, refundedTotal: 0, reason: 'Returned', status: 'failed' },
    });
    const after = await order(cartId);
    expect(after).toMatchObject({ status: 'paid', refundedTotal: 0 });
    expect(after.refunds).toEqual([expect.objectContaining({ id: refund.id, status: 'failed', failureCode: 'expired_or_canceled_card' })]);

    // Stripe's other event about the same failure finds the refund failed already: nothing more is done.
    const other = await sendStripe(refundEvent('refund.failed'));
    expect(await other.json()).toEqual({ received: true, ignored: true });
    // An id we never gave out: answered, logged, ignored.
    const unknown = await sendStripe(refundEvent('refund.failed').replace(stored!.processor_refund_id, 're_not_ours'));
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ received: true, ignored: true });
    expect(logLines.some((line) => line.includes('refund re_not_ours is not one of ours'))).toBe(true);

    // Acted once: one order_updated for the refund in the ledger and at the receiver, and the refund may be asked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const recorded =
      await stack.db`select 1 from webhook_events where cart_id = ${cartId} and event = 'order_updated' and payload->'data'->'refund'->>'id' = ${refund.id}`;
    expect(recorded).toHaveLength(1);
    expect(eventsOf(cartId).filter((e) => e.event === 'order_updated' && e.data.refund)).toHaveLength(1);
    const again = await api.refund(cartId, { amount });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { status: string }).status).toBe('succeeded');
  });

  it('a late captured payment for an abandoned cart is refunded in full, and no order appears', { timeout: 30_000 }, async () => {
    const cartId = await abandonedCart();
    const chargeId = `${LATE_PAYMENT}${randomBytes(6).toString('hex')}`;
    const payload = intentEvent('payment_intent.succeeded', { id: chargeId, status: 'succeeded', amount: 4498, metadata: { checkout_key: cartId } });
    expect((await sendStripe(payload)).status).toBe(200);
    expect(await lateResult(payload)).toBe('refunded');
    expect(lateCalls.filter((c) => c.chargeId === chargeId)).toEqual([{ idempotencyKey: `${cartId}:late-refund`, chargeId, amount: 4498, currency: 'EUR' }]);
    expect((await order(cartId)).status).toBe('abandoned');
    expect(eventsOf(cartId).map((e) => e.event)).toEqual(['order_abandoned']);
  });

  it('a late authorized payment for an abandoned cart is voided; a paid cart’s own payment is left alone', { timeout: 30_000 }, async () => {
    const cartId = await abandonedCart();
    const chargeId = `${LATE_PAYMENT}${randomBytes(6).toString('hex')}`;
    const payload = intentEvent('payment_intent.amount_capturable_updated', {
      id: chargeId,
      status: 'requires_capture',
      amount: 4498,
      metadata: { checkout_key: cartId },
    });
    expect((await sendStripe(payload)).status).toBe(200);
    expect(await lateResult(payload)).toBe('voided');
    expect(lateCalls.filter((c) => c.chargeId === chargeId)).toEqual([{ idempotencyKey: `${cartId}:late`, chargeId }]);
    expect((await order(cartId)).status).toBe('abandoned');

    const paid = await carts.paidCart();
    const own = intentEvent('payment_intent.succeeded', { id: `${LATE_PAYMENT}own`, status: 'succeeded', amount: 4498, metadata: { checkout_key: paid } });
    const res = await sendStripe(own);
    expect(await res.json()).toEqual({ received: true, ignored: true });
    expect(lateCalls.filter((c) => c.chargeId === `${LATE_PAYMENT}own`)).toEqual([]);
  });

  it('an early fraud warning marks the order', { timeout: 30_000 }, async () => {
    const cartId = await carts.paidCart();
    const [row] = await stack.db<{ payment_reference: string }[]>`select payment_reference from carts where cart_id = ${cartId}`;
    const warnedAt = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({
      id: `evt_${randomBytes(12).toString('hex')}`,
      object: 'event',
      type: 'radar.early_fraud_warning.created',
      created: warnedAt,
      data: { object: { id: 'issfr_1', object: 'radar.early_fraud_warning', created: warnedAt, payment_intent: row!.payment_reference, fraud_type: 'misc' } },
    });
    expect((await sendStripe(payload)).status).toBe(200);
    expect(await lateResult(payload)).toBe('marked');
    expect((await order(cartId)).earlyFraudWarningAt).toBe(new Date(warnedAt * 1000).toISOString());
  });
});
