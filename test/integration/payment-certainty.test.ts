import { describe, expect, it } from 'vitest';
import { createSandboxPaymentProcessor, SANDBOX_CARDS, sandboxRecord } from '../../core/checkout/payment-processors/sandbox.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';
import { cartSessionDriver, historyEvents, ledgerRow, recordedEvents, scheduledCount, vaultCount, type Session } from '../support/cart-session-driver.js';
import { waitFor } from '../support/wait-for.js';
import { boundBrowserCookie } from '../support/bound-browser.js';

/**
 * An unknown outcome is never a decline (docs/decisions/otp-and-cards.md): an unanswered charge is
 * resolved by lookups under the cart's key, within PAYMENT_RESOLUTION_SECONDS, and a session that
 * gives up voids by key so that a late approval cannot charge the customer.
 */

async function paidOrFailed(stack: TestStack, number: string) {
  const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  const s = await driver.verifiedSession();
  const state = await driver.pay(s, number);
  await s.handle.result();
  return { s, state };
}

/**
 * The merchant's story: processing, announced once the outcome is PROCESSING_EVENT_AFTER_MS late, then
 * exactly one final event. `maybe`: an outcome that comes about then may or may not have been announced.
 */
async function expectOneStory(stack: TestStack, s: Session, final: string, processing: 'announced' | 'maybe' = 'announced') {
  const story = (await recordedEvents(stack, s.cartId)).map((e) => `${e.event}:${e.status}`);
  expect(story).toEqual(processing === 'maybe' && story.length === 1 ? [final] : ['order_updated:processing', final]);
}

/** Activity types in the order the workflow scheduled them. */
async function scheduledActivities(s: Session): Promise<string[]> {
  return (await historyEvents(s.handle)).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}

describe('an unanswered charge is resolved, not declined (bound 4 s; the late approval lands after 5 s)', () => {
  const stack = useTestStack({ PAYMENT_RESOLUTION_SECONDS: '4' }, { paymentProcessor: createSandboxPaymentProcessor('sandbox', { lateApprovalMs: 5_000 }) });

  it('approved but the answer lost: paid, with exactly one charge at the processor', async () => {
    const { s, state } = await paidOrFailed(stack, SANDBOX_CARDS.answerLostOnce);
    expect(state).toMatchObject({ status: 'paid', step: 'done' });
    expect(sandboxRecord(s.cartId)).toMatchObject({ charges: 1, voided: false });
    expect(sandboxRecord(s.cartId)!.requests).toBeGreaterThanOrEqual(2);
    expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'paid', failure_code: null });
    // The retry a second later is answered: about when processing would be announced.
    await expectOneStory(stack, s, 'order_created:paid', 'maybe');
    expect(await vaultCount(stack, s.cartId)).toBe(0);
  });

  it('times out twice, then approved: paid within the charge retries, one charge', async () => {
    const { s, state } = await paidOrFailed(stack, SANDBOX_CARDS.timesOutTwice);
    expect(state).toMatchObject({ status: 'paid' });
    expect(sandboxRecord(s.cartId)).toMatchObject({ requests: 3, charges: 1 });
    await expectOneStory(stack, s, 'order_created:paid');
  });

  it('never answers but approved late, inside the bound: found by lookup, paid, one charge, not voided', async () => {
    const { s, state } = await paidOrFailed(stack, SANDBOX_CARDS.neverAnswers);
    expect(state).toMatchObject({ status: 'paid' });
    expect(await scheduledCount(s.handle, 'lookupPayment')).toBeGreaterThanOrEqual(1);
    expect(await scheduledCount(s.handle, 'voidPayment')).toBe(0);
    expect(sandboxRecord(s.cartId)).toMatchObject({ charges: 1, voided: false });
    await expectOneStory(stack, s, 'order_created:paid');
  });

  it('never answers and lookup says not found: failed processor_error only at the bound, and voided by key', async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
    const s = await driver.verifiedSession();
    const started = Date.now();
    const paying = driver.pay(s, SANDBOX_CARDS.processorError);
    // While the outcome is unknown the session stays processing, and the page says it is confirming.
    await waitFor(async () => ((await driver.state(s)).step === 'processing' ? true : undefined), { what: 'step processing' });
    const page = await fetch(`${stack.checkoutUrl}/status?token=${s.cartId}`, { headers: { cookie: await boundBrowserCookie(stack, s.cartId) } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Confirming your payment…');
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await driver.state(s)).toMatchObject({ status: 'processing', step: 'processing' });
    expect(await paying).toMatchObject({ status: 'failed', failureCode: 'processor_error' });
    // 1 s + 2 s between the charge's attempts, then the 4 s bound.
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);
    const activities = await scheduledActivities(s);
    expect(activities.filter((a) => a === 'lookupPayment').length).toBeGreaterThanOrEqual(1);
    expect(activities.lastIndexOf('voidPayment')).toBeGreaterThan(activities.lastIndexOf('lookupPayment'));
    expect(activities.filter((a) => a === 'voidPayment')).toHaveLength(1);
    expect(sandboxRecord(s.cartId)).toMatchObject({ charges: 0, voided: true });
    expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'failed', failure_code: 'processor_error' });
    await expectOneStory(stack, s, 'order_updated:failed');
  });
});

describe('an approval that lands after the session gave up (bound 1 s; the approval lands after 8 s)', () => {
  const stack = useTestStack({ PAYMENT_RESOLUTION_SECONDS: '1' }, { paymentProcessor: createSandboxPaymentProcessor('sandbox', { lateApprovalMs: 8_000 }) });

  it('is voided, and the merchant keeps one story: failed, one final event', async () => {
    const { s, state } = await paidOrFailed(stack, SANDBOX_CARDS.neverAnswers);
    expect(state).toMatchObject({ status: 'failed', failureCode: 'processor_error' });
    expect(sandboxRecord(s.cartId)).toMatchObject({ charges: 0, voided: true });

    await waitFor(() => (sandboxRecord(s.cartId)?.charges === 1 ? true : undefined), { what: 'the late approval', timeoutMs: 15_000 });
    expect(sandboxRecord(s.cartId)).toMatchObject({ charges: 1, voided: true });
    expect(await ledgerRow(stack, s.cartId)).toMatchObject({ status: 'failed', failure_code: 'processor_error' });
    await expectOneStory(stack, s, 'order_updated:failed');
  });
});
