import { createHash, randomUUID } from 'node:crypto';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import type { SessionStep } from '../../activities/cart-session/ledger.js';
import type { PaymentLookup, PaymentOutcome } from '../../activities/cart-session/payments.js';
import type { CartStatusChange } from '../../core/checkout/cart-ledger.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { ACTION_REFUSED, OTP_LOCKED, OTP_SEND_FAILED, PROCESSING_EVENT_AFTER_MS } from '../../core/checkout/session.js';
import type { CartEventInput } from '../../core/webhooks/events.js';
import { cartSession } from '../../workflows/cart-session/workflow.js';
import {
  cancelUpdate,
  expireUpdate,
  payUpdate,
  sendCodeUpdate,
  stateQuery,
  verifyCodeUpdate,
  voidUpdate,
  type CartSessionInput,
} from '../../workflows/cart-session/messages.js';
import { refusalOf } from '../support/cart-session-driver.js';
import { useWorkflowEnvironment } from '../support/workflow-environment.js';

/** A keyed code hash as the page would send it: 64 hex characters. */
const codeHash = (code: string) => createHash('sha256').update(`test-key:${code}`).digest('hex');
const RIGHT_CODE = codeHash('123456');
const CARD = { cardToken: 'card_0123456789abcdefXYZ', brand: 'visa', last4: '4242' };

type ActivityCall = { name: string; input: unknown };

/**
 * The cart session's activities as mocks: each call is recorded, the ledger and the processor answer
 * as `behaviour` says. Only what the workflow schedules is here, so a call to anything else fails the
 * workflow task (and the test).
 */
function sessionActivities(behaviour: { charge?: () => Promise<PaymentOutcome>; lookup?: () => Promise<PaymentLookup>; sendOtp?: () => Promise<void> } = {}) {
  const calls: ActivityCall[] = [];
  const record =
    <I, O>(name: string, answer: (input: I) => Promise<O> | O) =>
    async (input: I): Promise<O> => {
      calls.push({ name, input });
      return answer(input);
    };
  const activities = {
    recordCartStatus: record<CartStatusChange, void>('recordCartStatus', () => undefined),
    recordCartEvent: record<CartEventInput, { eventId: string; sequence: number }>('recordCartEvent', () => ({ eventId: 'evt_1', sequence: 1 })),
    discardCards: record<{ cartId: string }, void>('discardCards', () => undefined),
    recordSessionStep: record<SessionStep, void>('recordSessionStep', () => undefined),
    sendOtp: record('sendOtp', async () => {
      await behaviour.sendOtp?.();
      return { acceptedDigests: [otpHashDigest(RIGHT_CODE)] };
    }),
    chargePayment: record('chargePayment', () => (behaviour.charge ? behaviour.charge() : { outcome: 'approved', chargeId: 'ch_1' })),
    lookupPayment: record('lookupPayment', () => (behaviour.lookup ? behaviour.lookup() : { found: false })),
    voidPayment: record('voidPayment', () => undefined),
  } satisfies Partial<CartSessionActivities>;
  const named = (name: string) => calls.filter((c) => c.name === name).map((c) => c.input);
  /** A session writes a step in one recordSessionStep, or (a 1.0 session) in up to three activities; a 1.2 session's first charge writes its processing step. */
  const step = (c: ActivityCall) => (c.name === 'recordSessionStep' ? (c.input as SessionStep) : undefined);
  const chargedStep = (c: ActivityCall) => (c.name === 'chargePayment' ? (c.input as { processing?: CartStatusChange }).processing : undefined);
  const eventOf = (c: ActivityCall) => (c.name === 'recordCartEvent' ? (c.input as CartEventInput) : step(c)?.event);
  return {
    activities,
    calls,
    named,
    events: () => calls.flatMap((c) => eventOf(c) ?? []),
    statuses: () => calls.flatMap((c) => (c.name === 'recordCartStatus' ? [c.input as CartStatusChange] : (step(c)?.status ?? chargedStep(c) ?? []))),
    /** How many times the vault was emptied. */
    discards: () => calls.filter((c) => c.name === 'discardCards' || step(c)?.discardCards).length,
    /** Where in the calls the last event was recorded. */
    lastEventAt: () => calls.map((c) => eventOf(c) !== undefined).lastIndexOf(true),
  };
}

describe('cart session workflow, activities mocked', () => {
  const environment = useWorkflowEnvironment([
    'recordCartStatus',
    'recordCartEvent',
    'discardCards',
    'recordSessionStep',
    'sendOtp',
    'chargePayment',
    'lookupPayment',
    'voidPayment',
  ]);

  const start = (input: Partial<CartSessionInput> = {}) => {
    const cartId = `cart_${randomUUID()}`;
    return environment.env.client.workflow.start(cartSession, {
      workflowId: `cart-${cartId}`,
      taskQueue: environment.taskQueue,
      args: [
        {
          cartId,
          platformUuid: randomUUID(),
          storeName: 'Test Store',
          amount: 4498,
          currency: 'EUR',
          expiresOn: new Date(Date.now() + 60_000).toISOString(),
          lifetimeMs: 60_000,
          paymentResolutionMs: 1_500,
          ...input,
        },
      ],
    });
  };
  type Handle = Awaited<ReturnType<typeof start>>;
  const verified = async (handle: Handle) => {
    await handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }] });
    return handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: RIGHT_CODE }] });
  };

  it('takes a verified customer to paid: one charge, the ledger, order_created, the card discarded', async () => {
    const mocks = sessionActivities();
    environment.mockActivities(mocks.activities);
    const handle = await start();
    expect((await handle.query(stateQuery)).step).toBe('contact');
    const sent = await handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }] });
    expect(sent).toMatchObject({ step: 'code', contactHint: 'j***@example.com', sendAttempts: 1, otp: { attemptsLeft: 5, resendsLeft: 3 } });
    expect((await handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: RIGHT_CODE }] })).step).toBe('card');
    const paid = await handle.executeUpdate(payUpdate, { args: [CARD] });
    expect(paid).toMatchObject({ status: 'paid', step: 'done', payment: { brand: 'visa', last4: '4242' } });
    expect(await handle.result()).toEqual({ status: 'paid' });

    const cartId = paid.cartId;
    // The verified contact goes with every step after the code, for the order's customer.
    const customer = { email: 'jane.doe@example.com' };
    // A 1.2 session says whether the card was a saved one: this one was typed.
    const payment = { brand: 'visa', last4: '4242', savedCard: false };
    // The charge writes the processing step itself: no local activity of its own.
    expect(mocks.named('chargePayment')).toEqual([
      {
        cartId,
        cardToken: CARD.cardToken,
        amount: 4498,
        currency: 'EUR',
        threeDSecure: true,
        processing: { cartId, status: 'processing', payment, customer },
      },
    ]);
    expect(mocks.named('recordSessionStep')).toHaveLength(1);
    expect(mocks.statuses()).toEqual([
      { cartId, status: 'processing', payment, customer },
      { cartId, status: 'paid', payment, customer },
    ]);
    // A prompt outcome is announced by its final event alone.
    expect(mocks.events().map((e) => `${e.event}:${e.status}`)).toEqual(['order_created:paid']);
    expect(mocks.calls.at(-1)).toMatchObject({ name: 'recordSessionStep', input: { status: { status: 'paid' }, discardCards: true } });
    expect(mocks.discards()).toBe(1);
    expect(mocks.named('lookupPayment')).toEqual([]);
  });

  it(`announces processing to the merchant when the payment has no outcome after ${PROCESSING_EVENT_AFTER_MS} ms, then the outcome`, async () => {
    const slowApproval = () =>
      new Promise<PaymentOutcome>((resolve) => setTimeout(() => resolve({ outcome: 'approved', chargeId: 'ch_1' }), PROCESSING_EVENT_AFTER_MS + 1_000));
    const mocks = sessionActivities({ charge: slowApproval });
    environment.mockActivities(mocks.activities);
    const handle = await start();
    await verified(handle);
    expect(await handle.executeUpdate(payUpdate, { args: [CARD] })).toMatchObject({ status: 'paid' });
    expect(mocks.events().map((e) => `${e.event}:${e.status}`)).toEqual(['order_updated:processing', 'order_created:paid']);
    expect(mocks.events()[0]).toMatchObject({ payment: { brand: 'visa', last4: '4242' } });
  });

  it('fails the session with otp_locked after the fifth wrong code, and never charges', async () => {
    const mocks = sessionActivities();
    environment.mockActivities(mocks.activities);
    const handle = await start();
    await handle.executeUpdate(sendCodeUpdate, { args: [{ contact: '+33612345678' }] });
    for (let left = 4; left >= 1; left--) {
      const state = await handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: codeHash('000000') }] });
      expect(state).toMatchObject({ status: 'pending', step: 'code', otp: { attemptsLeft: left } });
    }
    const locked = await handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash: codeHash('000000') }] });
    expect(locked).toMatchObject({ status: 'failed', step: 'done', failureCode: OTP_LOCKED });
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(mocks.events()).toEqual([{ cartId: locked.cartId, event: 'order_updated', status: 'failed', failureCode: OTP_LOCKED }]);
    expect(mocks.named('chargePayment')).toEqual([]);
    expect(mocks.discards()).toBe(1);
  });

  it('abandons a session nobody finished when its lifetime runs out', async () => {
    const mocks = sessionActivities();
    environment.mockActivities(mocks.activities);
    const handle = await start({ lifetimeMs: 1_000 });
    expect(await handle.result()).toEqual({ status: 'abandoned' });
    expect(mocks.events().map((e) => `${e.event}:${e.status}`)).toEqual(['order_abandoned:abandoned']);
    expect(mocks.discards()).toBe(1);
    expect(await handle.query(stateQuery)).toMatchObject({ status: 'abandoned', step: 'done' });
  });

  it('reports a decline as failed with its code, on the payment too', async () => {
    const mocks = sessionActivities({ charge: () => Promise.resolve({ outcome: 'declined', failureCode: 'card_declined' }) });
    environment.mockActivities(mocks.activities);
    const handle = await start();
    await verified(handle);
    const failed = await handle.executeUpdate(payUpdate, { args: [CARD] });
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'card_declined', payment: { failureCode: 'card_declined' } });
    expect(mocks.events().at(-1)).toMatchObject({ event: 'order_updated', status: 'failed', failureCode: 'card_declined' });
    expect(mocks.named('chargePayment')).toHaveLength(1);
    expect(mocks.named('voidPayment')).toEqual([]);
  });

  it('resolves an unanswered charge by lookup: the approval the processor reports is a payment, not a failure', async () => {
    const mocks = sessionActivities({
      charge: () => Promise.reject(ApplicationFailure.nonRetryable('no answer', 'ProcessorUnavailable')),
      lookup: () => Promise.resolve({ found: true, outcome: { outcome: 'approved', chargeId: 'ch_late' } }),
    });
    environment.mockActivities(mocks.activities);
    const handle = await start({ paymentResolutionMs: 10_000 });
    await verified(handle);
    expect(await handle.executeUpdate(payUpdate, { args: [CARD] })).toMatchObject({ status: 'paid' });
    expect(mocks.named('lookupPayment')).toHaveLength(1);
    expect(mocks.named('voidPayment')).toEqual([]);
  });

  it('voids by key and fails with processor_error when nothing is found before the resolution bound', async () => {
    const mocks = sessionActivities({ charge: () => Promise.reject(ApplicationFailure.nonRetryable('no answer', 'ProcessorUnavailable')) });
    environment.mockActivities(mocks.activities);
    const handle = await start({ paymentResolutionMs: 1_500 });
    await verified(handle);
    const failed = await handle.executeUpdate(payUpdate, { args: [CARD] });
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'processor_error' });
    expect(mocks.named('lookupPayment').length).toBeGreaterThanOrEqual(1);
    expect(mocks.named('voidPayment')).toEqual([{ cartId: failed.cartId }]);
    // The void comes before the final event, so a late approval never contradicts it.
    expect(mocks.calls.map((c) => c.name).lastIndexOf('voidPayment')).toBeLessThan(mocks.lastEventAt());
  });

  it('cancels on the customer’s word, and refuses a payment before the code is verified', async () => {
    const mocks = sessionActivities();
    environment.mockActivities(mocks.activities);
    const handle = await start();
    expect(await refusalOf(handle.executeUpdate(payUpdate, { args: [CARD] }))).toBe(ACTION_REFUSED.notVerified);
    expect(await refusalOf(handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'not a contact' }] }))).toBe(ACTION_REFUSED.invalidContact);
    expect(await handle.executeUpdate(cancelUpdate)).toMatchObject({ status: 'cancelled', step: 'done', cancelledBy: 'customer' });
    expect(mocks.events().map((e) => `${e.event}:${e.status}:${e.cancelledBy}`)).toEqual(['order_cancelled:cancelled:customer']);
    expect(mocks.named('sendOtp')).toEqual([]);
  });

  it('ends on the merchant’s expire (cancelledBy merchant), and refuses it while a payment is in progress', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const mocks = sessionActivities({ charge: () => answered.then(() => ({ outcome: 'approved', chargeId: 'ch_1' })) });
    environment.mockActivities(mocks.activities);

    const open = await start();
    await open.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }] });
    expect(await open.executeUpdate(expireUpdate)).toMatchObject({ status: 'cancelled', step: 'done', cancelledBy: 'merchant' });
    expect(await open.result()).toEqual({ status: 'cancelled' });
    const cartId = open.workflowId.replace(/^cart-/, '');
    expect(mocks.statuses()).toEqual([{ cartId, status: 'cancelled', cancelledBy: 'merchant' }]);
    expect(mocks.events()).toEqual([{ cartId, event: 'order_cancelled', status: 'cancelled', cancelledBy: 'merchant' }]);
    expect(mocks.discards()).toBe(1);

    const paying = await start();
    await verified(paying);
    const paid = paying.executeUpdate(payUpdate, { args: [CARD] });
    await expect.poll(() => mocks.named('chargePayment').length, { timeout: 10_000 }).toBe(1);
    expect(await refusalOf(paying.executeUpdate(expireUpdate))).toBe(ACTION_REFUSED.paymentInProgress);
    answer();
    expect(await paid).toMatchObject({ status: 'paid' });
    // Once the payment decided the session there is nothing left to end (the API answers SESSION_ENDED).
    expect(await paying.result()).toEqual({ status: 'paid' });
    await expect(paying.executeUpdate(expireUpdate)).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(
      mocks
        .events()
        .filter((e) => e.event === 'order_cancelled')
        .map((e) => e.cartId),
    ).toEqual([cartId]);
  });

  it('records a merchant’s void of a held authorization as cancelled by the merchant', async () => {
    const mocks = sessionActivities();
    environment.mockActivities(mocks.activities);
    const handle = await start({ captureMethod: 'manual', authorizationHoldMs: 60_000 });
    await verified(handle);
    expect(await handle.executeUpdate(payUpdate, { args: [CARD] })).toMatchObject({ status: 'authorized' });
    expect(await handle.executeUpdate(voidUpdate)).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant' });
    expect(await handle.result()).toEqual({ status: 'cancelled' });
    const cartId = handle.workflowId.replace(/^cart-/, '');
    expect(mocks.named('voidPayment')).toEqual([{ cartId }]);
    expect(mocks.events().map((e) => `${e.event}:${e.status}:${e.cancelledBy}`)).toEqual([
      'order_created:authorized:undefined',
      'order_cancelled:cancelled:merchant',
    ]);
    expect(mocks.statuses().at(-1)).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant' });
  });

  it('fails a send the provider refused without ending the session, and counts the attempt', async () => {
    const mocks = sessionActivities({ sendOtp: () => Promise.reject(ApplicationFailure.nonRetryable('provider down')) });
    environment.mockActivities(mocks.activities);
    const handle = await start();
    expect(await refusalOf(handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }] }))).toBe(OTP_SEND_FAILED);
    expect(await handle.query(stateQuery)).toMatchObject({ status: 'pending', step: 'contact', sendAttempts: 1 });
    expect(mocks.events()).toEqual([]);
  });
});
