import { describe, expect, it } from 'vitest';
import { createReminderActivities } from '../../activities/cart-session/reminder.js';
import { messageText } from '../../core/checkout/otp/delivery/message.js';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import type { ReminderMessage } from '../../core/checkout/otp/sender.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { Order } from '../../core/orders/order-schema.js';
import type { Session } from '../support/cart-session-driver.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** Short enough to watch sessions be abandoned, long enough to act on one between abandonment and reminder. */
const LIFETIME_SECONDS = 20;
const REMINDER_DELAY_SECONDS = 15;

/**
 * A stack whose sessions are abandoned after LIFETIME_SECONDS and reminded REMINDER_DELAY_SECONDS later
 * (`env` adds settings), whose messages a recording sender keeps, and one merchant with its helpers.
 */
function useReminderStack(env: Record<string, string> = {}) {
  const { sent, otpSender } = recordingOtpSender();
  const stack = useTestStack(
    { SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS), RECOVERY_REMINDER_DELAY_SECONDS: String(REMINDER_DELAY_SECONDS), ...env },
    { otpSender, checkoutAtItsBaseUrl: true },
  );
  const shop = useReceivingMerchant(stack, 'Second Look Ltd');

  async function recoveryCart(): Promise<Session> {
    const cartId = await shop.createCart(({ cartObject }) => {
      cartObject.store.name = 'Whatever The Request Says';
      cartObject.cart.recovery = { enabled: true, reminderMinutes: 120 };
    });
    return { cartId, handle: shop.driver.handleOf(cartId) };
  }

  const codeOf = (cartId: string) => {
    const code = sent.filter((m) => m.cartId === cartId && m.kind === 'code').at(-1);
    if (code?.kind !== 'code') throw new Error(`no code was sent for ${cartId}`);
    return code.code;
  };
  const remindersOf = (cartId: string) => sent.filter((m): m is ReminderMessage => m.cartId === cartId && m.kind === 'reminder');
  const verified = async (session: Session, contact: string, options: { remind?: boolean; locale?: string }) => {
    await shop.driver.sendCode(session, contact, options);
    expect((await shop.driver.verify(session, codeOf(session.cartId))).step).toBe('card');
  };
  const order = async (cartId: string) => (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;
  const abandonedEvent = (cartId: string) =>
    waitFor(() => shop.signedEvents(cartId, 'order_abandoned')[0], { timeoutMs: 90_000, what: `order_abandoned of ${cartId}` });
  /** The session a visit of the abandoned cart's link opened. */
  const recover = async (cartId: string): Promise<Session> => {
    const url = (await abandonedEvent(cartId)).data.recoveryUrl!;
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const recovered = new URL(res.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;
    return { cartId: recovered, handle: shop.driver.handleOf(recovered) };
  };
  const reminderSentAt = async (cartId: string) =>
    (await stack.db<{ reminder_sent_at: Date | null }[]>`select reminder_sent_at from carts where cart_id = ${cartId}`)[0]!.reminder_sent_at;

  return { otpSender, stack, shop, recoveryCart, codeOf, remindersOf, verified, order, abandonedEvent, recover, reminderSentAt };
}

/**
 * Abandoned-cart recovery's reminder (docs/abandoned-cart-recovery.md), with the delay shortened by the
 * server's RECOVERY_REMINDER_DELAY_SECONDS (the cart asks for 120 minutes): one reminder, by the channel
 * the code went by, to a customer who ticked the box and verified a contact; none otherwise, none once
 * the link opened a session, none for a session that was itself a recovery, and never two.
 */
describe('the abandoned-cart reminder', () => {
  const { otpSender, stack, shop, recoveryCart, remindersOf, verified, order, abandonedEvent, recover, reminderSentAt } = useReminderStack();

  it('sends one reminder by the code’s channel, in its language and the registered name, with the order’s recoveryUrl; a retry sends nothing more', async () => {
    const session = await recoveryCart();
    await verified(session, '+33 6 12 34 56 78', { remind: true, locale: 'fr' });
    const abandonedAt = Date.now();
    await abandonedEvent(session.cartId);
    expect(remindersOf(session.cartId), 'nothing before the delay').toEqual([]);

    // The session's workflow ends once its reminder is sent.
    expect(await session.handle.result()).toEqual({ status: 'abandoned' });
    expect(Date.now() - abandonedAt).toBeGreaterThanOrEqual(REMINDER_DELAY_SECONDS * 1000);
    const [reminder, ...more] = remindersOf(session.cartId);
    expect(more).toEqual([]);
    const { recoveryUrl } = await order(session.cartId);
    expect(reminder).toMatchObject({
      kind: 'reminder',
      channel: 'sms',
      address: '+33612345678',
      addressHint: '•••• 5678',
      merchantName: 'Second Look Ltd',
      locale: 'fr',
      recoveryUrl,
    });
    const { sms, text, html } = messageText(reminder!);
    expect(sms).toBe(`Vous n’avez pas terminé votre paiement à Second Look Ltd. Terminez-le ici : ${recoveryUrl}`);
    for (const body of [text, html]) {
      expect(body).toContain(recoveryUrl);
      expect(body).not.toContain('Whatever The Request Says');
      expect(body).not.toContain('+33612345678');
      expect(body).not.toContain('•••• 5678');
    }
    expect(await reminderSentAt(session.cartId)).toBeInstanceOf(Date);

    // The activity run again, as a retry after a worker died past its claim would: nothing more goes out.
    const again = createReminderActivities({ config: stack.config, db: stack.db, logger: stack.logger, otpSender, metrics: stack.workerMetrics });
    expect(await again.sendRecoveryReminder({ cartId: session.cartId, locale: 'fr' })).toEqual({ sent: false, reason: 'already_sent' });
    expect(remindersOf(session.cartId)).toHaveLength(1);
  }, 120_000);

  it('sends none without the box ticked, nor without a verified contact; order_abandoned still carries recoveryUrl', async () => {
    const [unticked, unverified] = await Promise.all([recoveryCart(), recoveryCart()]);
    await verified(unticked, 'jane.doe@example.com', {});
    await shop.driver.sendCode(unverified, 'john.doe@example.com', { remind: true });

    for (const session of [unticked, unverified]) {
      expect((await abandonedEvent(session.cartId)).data.recoveryUrl).toMatch(/\/r\/[A-Za-z0-9_-]{22,}$/);
      // No reminder due: the workflow ends with the abandonment, without waiting for a delay.
      expect(await session.handle.result()).toEqual({ status: 'abandoned' });
      expect(remindersOf(session.cartId)).toEqual([]);
      expect(await reminderSentAt(session.cartId)).toBeNull();
    }
  }, 120_000);

  it('sends none for a cart paid through its recovery session before the delay, nor for a recovered session abandoned in turn', async () => {
    const [paidLater, abandonedTwice] = await Promise.all([recoveryCart(), recoveryCart()]);
    await Promise.all([
      verified(paidLater, 'paid.later@example.com', { remind: true }),
      verified(abandonedTwice, 'abandoned.twice@example.com', { remind: true }),
    ]);

    const [paying, secondChance] = await Promise.all([recover(paidLater.cartId), recover(abandonedTwice.cartId)]);
    await verified(paying, 'paid.later@example.com', { remind: true });
    expect((await shop.driver.pay(paying, SANDBOX_CARDS.approved)).status).toBe('paid');
    // The recovered session asks for a reminder too, and is abandoned in turn: it is no recovery of its own.
    await verified(secondChance, 'abandoned.twice@example.com', { remind: true });

    // Each abandoned cart's reminder came due and found its link already used (one paid, one still open).
    for (const session of [paidLater, abandonedTwice]) {
      expect(await session.handle.result()).toEqual({ status: 'abandoned' });
      expect(remindersOf(session.cartId)).toEqual([]);
      expect(await reminderSentAt(session.cartId)).toBeNull();
    }
    expect(await secondChance.handle.result()).toEqual({ status: 'abandoned' });
    expect(await order(secondChance.cartId)).toMatchObject({ recoveredFrom: abandonedTwice.cartId, recoveryUrl: null });
    expect(remindersOf(secondChance.cartId)).toEqual([]);
    expect(await reminderSentAt(secondChance.cartId)).toBeNull();
  }, 150_000);

  it('sends none for a public cart once the merchant requires its API key, whose link then opens nothing', async () => {
    const request = validCartRequest(shop.merchant.platformUuid);
    request.cartObject.cart.recovery = { enabled: true, reminderMinutes: 120 };
    const created = await postCart(stack.apiUrl, request);
    expect(created.status).toBe(200);
    const { cartId } = ((await created.json()) as { data: { cartId: string } }).data;
    const session = { cartId, handle: shop.driver.handleOf(cartId) };
    await verified(session, 'public.cart@example.com', { remind: true });
    await stack.db`update merchants set require_api_key_for_carts = true where platform_uuid = ${shop.merchant.platformUuid}`;
    try {
      expect(await session.handle.result()).toEqual({ status: 'abandoned' });
      expect(remindersOf(cartId)).toEqual([]);
      expect(await reminderSentAt(cartId)).toBeNull();
      const url = (await abandonedEvent(cartId)).data.recoveryUrl!;
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(410);
    } finally {
      await stack.db`update merchants set require_api_key_for_carts = false where platform_uuid = ${shop.merchant.platformUuid}`;
    }
  }, 120_000);
});

/**
 * A reminder for a real provider counts in the codes' budgets (core/checkout/otp/send-budget.ts): here
 * OTP_SENDS_PER_DESTINATION at 1, two abandoned carts of one customer, and the second reminder dropped.
 * (The driver sends codes as the workflow's updates, past the page's limits, so only reminders count.)
 */
describe('the abandoned-cart reminder within the message budgets', () => {
  const { stack, recoveryCart, remindersOf, verified } = useReminderStack({ ...REAL_CODE_PROVIDERS, OTP_SENDS_PER_DESTINATION: '1' });

  it('sends the first reminder to a destination and drops the one past its budget, counted in the bucket codes use', async () => {
    const carts = await Promise.all([recoveryCart(), recoveryCart()]);
    await Promise.all(carts.map((session) => verified(session, 'Jane.Doe+shop@example.com', { remind: true })));
    for (const session of carts) expect(await session.handle.result()).toEqual({ status: 'abandoned' });

    expect(carts.flatMap((session) => remindersOf(session.cartId)).map((m) => m.address)).toEqual(['jane.doe+shop@example.com']);
    const bucket = `otp-destination:${otpDestinationKey(stack.config.keyring, 'jane.doe@example.com')}`;
    const [window] = await stack.db<{ hits: number }[]>`select hits from rate_limit_windows where bucket = ${bucket} order by window_start desc limit 1`;
    expect(window?.hits, 'the sent reminder, counted; the refused one, not').toBe(1);
  }, 120_000);
});
