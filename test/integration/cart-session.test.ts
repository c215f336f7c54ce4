import { WorkflowNotFoundError } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { payUpdate, searchAttributes } from '../../workflows/cart-session/messages.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import {
  cartSessionDriver,
  historyEvents,
  ledgerRow,
  recordedEvents,
  refusalIn,
  refusalOf,
  scheduledCount,
  vaultCount,
} from '../support/cart-session-driver.js';
import { ACTION_REFUSED } from '../../core/checkout/session.js';

describe('cart session workflow (sandbox, real Temporal and PostgreSQL)', () => {
  const stack = useTestStack({ PAYMENT_RESOLUTION_SECONDS: '2' });
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });

  it('takes a customer from contact to code to card to paid, and records it everywhere', async () => {
    const s = await driver.createSession();
    expect(await driver.state(s)).toMatchObject({ cartId: s.cartId, status: 'pending', step: 'contact' });

    const afterSend = await driver.sendCode(s, 'Jane.Doe@Example.com');
    expect(afterSend).toMatchObject({ step: 'code', contactHint: 'j***@example.com', otp: { attemptsLeft: 5, resendsLeft: 3 } });
    const codeExpiresIn = Date.parse(afterSend.otp!.codeExpiresAt) - Date.now();
    expect(codeExpiresIn).toBeGreaterThan(4 * 60_000);
    expect(codeExpiresIn).toBeLessThanOrEqual(5 * 60_000);

    const afterVerify = await driver.verify(s, await driver.sentCode(s));
    expect(afterVerify).toMatchObject({ status: 'pending', step: 'card' });

    const paid = await driver.pay(s, '4111 1111 1111 1111');
    expect(paid).toMatchObject({ status: 'paid', step: 'done', payment: { brand: 'visa', last4: '1111' } });
    expect(await s.handle.result()).toEqual({ status: 'paid' });

    expect(await ledgerRow(stack, s.cartId)).toEqual({ status: 'paid', payment_brand: 'visa', payment_last4: '1111', failure_code: null });
    // Approved at once: the merchant's one event is order_created (processing is announced only for a slow payment).
    expect(await recordedEvents(stack, s.cartId)).toEqual([
      {
        sequence: 1,
        event: 'order_created',
        status: 'paid',
        payment: { brand: 'visa', last4: '1111', threeDSecure: { result: 'not_required' }, savedCard: false },
      },
    ]);
    expect(await vaultCount(stack, s.cartId)).toBe(0);

    const description = await s.handle.describe();
    expect(description.typedSearchAttributes.get(searchAttributes.cartStatus)).toBe('paid');
    expect(description.typedSearchAttributes.get(searchAttributes.cartTotal)).toBe(4498);
    expect(description.typedSearchAttributes.get(searchAttributes.currency)).toBe('EUR');
    expect(description.memo).toEqual({ storeName: 'Test Store' });
  });

  it('accepts the sandbox OTP and a phone number, showing only its last digits', async () => {
    const s = await driver.createSession();
    expect(await driver.sendCode(s, '+33 6 12 34 56 78')).toMatchObject({ step: 'code', contactHint: '•••• 5678' });
    expect(await driver.verify(s, stack.config.sandboxOtp)).toMatchObject({ step: 'card' });
  });

  it('refuses actions out of order, synchronously and without touching history', async () => {
    const s = await driver.createSession();
    const eventsBefore = (await historyEvents(s.handle)).length;
    expect(await refusalOf(driver.verify(s, '000000'))).toBe(ACTION_REFUSED.codeNotSent);
    expect(await refusalOf(driver.resendCode(s))).toBe(ACTION_REFUSED.codeNotSent);
    expect(await refusalOf(driver.pay(s, SANDBOX_CARDS.approved))).toBe(ACTION_REFUSED.notVerified);
    expect(await refusalOf(driver.sendCode(s, 'not a contact'))).toBe(ACTION_REFUSED.invalidContact);
    expect(await refusalOf(driver.sendCode(s, '0612345678'))).toBe(ACTION_REFUSED.invalidContact);
    // Only the workflow task that ran the validators may appear; no update was accepted.
    const added = (await historyEvents(s.handle)).slice(eventsBefore);
    expect(added.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);

    await driver.sendCode(s);
    expect(await refusalOf(driver.resendCode(s))).toBe(ACTION_REFUSED.resendTooSoon);
    expect(await refusalOf(driver.pay(s, SANDBOX_CARDS.approved))).toBe(ACTION_REFUSED.notVerified);
    await driver.verify(s, stack.config.sandboxOtp);
    expect(await refusalOf(driver.sendCode(s))).toBe(ACTION_REFUSED.alreadyVerified);
    // Once verified, a code is only ever another browser's (docs/decisions/security.md, "One browser"), and none was asked for.
    expect(await refusalOf(driver.verify(s, stack.config.sandboxOtp))).toBe(ACTION_REFUSED.codeNotSent);

    await driver.pay(s, SANDBOX_CARDS.approved);
    // Once paid the workflow has completed: Temporal itself refuses anything more.
    await expect(driver.cancel(s)).rejects.toThrow(WorkflowNotFoundError);
    await expect(driver.pay(s, SANDBOX_CARDS.approved, undefined, undefined, 'another-pay')).rejects.toThrow(WorkflowNotFoundError);
  });

  it('charges once when Pay is submitted twice at the same moment', async () => {
    const s = await driver.verifiedSession();
    const card = await driver.vaultCard(s, SANDBOX_CARDS.approved);
    // The same click resent (same update id) and a second click (new id), all at once.
    const attempts = await Promise.allSettled([
      s.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}` }),
      s.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}` }),
      s.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}-again` }),
    ]);
    const fulfilled = attempts.filter((a) => a.status === 'fulfilled');
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const a of fulfilled) expect(a.value).toMatchObject({ status: 'paid' });
    const rejected = attempts.filter((a) => a.status === 'rejected');
    for (const a of rejected) expect(refusalIn(a.reason)).toBe(ACTION_REFUSED.paymentSubmitted);
    expect(await scheduledCount(s.handle, 'chargePayment')).toBe(1);
    expect((await recordedEvents(stack, s.cartId)).map((e) => e.event)).toEqual(['order_created']);
  });

  it('lets the customer cancel before paying: cancelled, order_cancelled, nothing left in the vault', async () => {
    const s = await driver.verifiedSession();
    await driver.vaultCard(s, SANDBOX_CARDS.approved);
    expect(await driver.cancel(s)).toMatchObject({ status: 'cancelled', step: 'done' });
    expect(await s.handle.result()).toEqual({ status: 'cancelled' });
    expect((await ledgerRow(stack, s.cartId))?.status).toBe('cancelled');
    expect(await recordedEvents(stack, s.cartId)).toEqual([{ sequence: 1, event: 'order_cancelled', status: 'cancelled', cancelledBy: 'customer' }]);
    expect(await stack.db`select cancelled_by from carts where cart_id = ${s.cartId}`).toEqual([{ cancelled_by: 'customer' }]);
    expect(await vaultCount(stack, s.cartId)).toBe(0);
    expect((await s.handle.describe()).typedSearchAttributes.get(searchAttributes.cartStatus)).toBe('cancelled');
  });

  it('fails the session after five wrong codes (otp_locked) and accepts nothing after', async () => {
    const s = await driver.createSession();
    await driver.sendCode(s);
    const code = await driver.sentCode(s);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let left = 4; left >= 1; left--) {
      expect(await driver.verify(s, wrong)).toMatchObject({ status: 'pending', step: 'code', otp: { attemptsLeft: left } });
    }
    expect(await driver.verify(s, wrong)).toMatchObject({ status: 'failed', step: 'done', failureCode: 'otp_locked' });
    expect(await s.handle.result()).toEqual({ status: 'failed' });
    await expect(driver.verify(s, code)).rejects.toThrow(WorkflowNotFoundError);
    expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'failed', failure_code: 'otp_locked' });
    expect(await recordedEvents(stack, s.cartId)).toEqual([
      { sequence: 1, event: 'order_updated', status: 'failed', payment: undefined, failureCode: 'otp_locked' },
    ]);
  });

  describe('every sandbox card', () => {
    it.each([
      ['declined', SANDBOX_CARDS.declined, '12/30', '123', 'card_declined'],
      ['insufficient funds', SANDBOX_CARDS.insufficientFunds, '12/30', '123', 'insufficient_funds'],
      ['not a test card', '5555555555554444', '12/30', '123', 'not_a_test_card'],
      ['the approved card with a wrong CVV', SANDBOX_CARDS.approved, '12/30', '999', 'card_declined'],
      ['the approved card with a wrong expiry', SANDBOX_CARDS.approved, '11/31', '123', 'card_declined'],
    ])('%s → failed with %s, in one authorization', async (_name, number, expiry, cvv, failureCode) => {
      const s = await driver.verifiedSession();
      const last4 = number.slice(-4);
      expect(await driver.pay(s, number, expiry, cvv)).toMatchObject({ status: 'failed', step: 'done', failureCode, payment: { last4, failureCode } });
      expect(await scheduledCount(s.handle, 'chargePayment')).toBe(1);
      expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'failed', payment_last4: last4, failure_code: failureCode });
      const events = await recordedEvents(stack, s.cartId);
      expect(events.map((e) => [e.event, e.status])).toEqual([['order_updated', 'failed']]);
      expect(events[0]).toMatchObject({ payment: { last4 }, failureCode });
      expect(await vaultCount(stack, s.cartId)).toBe(0);
    });

    it('processor error → retried three times, looked up until the bound, voided, then failed with processor_error', async () => {
      const s = await driver.verifiedSession();
      const started = Date.now();
      const paying = driver.pay(s, SANDBOX_CARDS.processorError);
      // While the processor is being retried, the session is closed to every other action.
      await waitFor(async () => ((await driver.state(s)).step === 'processing' ? true : undefined), { what: 'step processing' });
      expect(await refusalOf(driver.cancel(s))).toBe(ACTION_REFUSED.sessionClosed);
      expect(await refusalOf(driver.pay(s, SANDBOX_CARDS.approved, undefined, undefined, 'another-pay'))).toBe(ACTION_REFUSED.paymentSubmitted);
      expect(await refusalOf(driver.verify(s, stack.config.sandboxOtp))).toBe(ACTION_REFUSED.sessionClosed);
      expect(await paying).toMatchObject({ status: 'failed', failureCode: 'processor_error' });
      // Backoff 1 s then 2 s between the three attempts, then 2 s (PAYMENT_RESOLUTION_SECONDS) of lookups.
      expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
      const events = await historyEvents(s.handle);
      const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'chargePayment');
      expect(scheduled.length).toBeGreaterThanOrEqual(1);
      expect(await scheduledCount(s.handle, 'lookupPayment')).toBeGreaterThanOrEqual(1);
      expect(await scheduledCount(s.handle, 'voidPayment')).toBe(1);
      const scheduledId = scheduled[0]!.eventId;
      const started3 = events.find(
        (e) => e.activityTaskStartedEventAttributes && String(e.activityTaskStartedEventAttributes.scheduledEventId) === String(scheduledId),
      );
      expect(started3?.activityTaskStartedEventAttributes?.attempt).toBe(3);
      const failure = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes?.failure;
      expect(failure?.applicationFailureInfo?.type).toBe('ProcessorUnavailable');
      expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'failed', failure_code: 'processor_error' });
      expect(await vaultCount(stack, s.cartId)).toBe(0);
    });
  });
});
