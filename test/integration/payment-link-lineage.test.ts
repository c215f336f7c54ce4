import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { PaymentLink } from '../../core/links/payment-link-schema.js';
import type { Order } from '../../core/orders/order-schema.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { validCartRequest } from '../support/fixtures.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** Short enough to watch a session be abandoned, long enough to verify and pay two others through the page first. */
const LIFETIME_SECONDS = 20;

/** The server's reminder delay (the carts ask for 120 minutes): S3's reminder would be due this long after it is abandoned. */
const REMINDER_DELAY_SECONDS = 2;

/** What the card step says when the link a session came from no longer sells (web/i18n `refusal.payment_link_unavailable`). */
const REFUSED = 'This payment link is no longer available';

/**
 * One lineage (docs/payment-links.md): every session minted from a link, a retry of one of its
 * sessions or a recovery of one, carries the link's id and its limits. The link's uses are reserved
 * at Pay, so no more sessions are paid than maxUses; a closed, expired or used-up link refuses Pay
 * and mints nothing through retry or recovery.
 */
describe('payment link lineage', () => {
  const stack = useTestStack(
    { SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS), RECOVERY_REMINDER_DELAY_SECONDS: String(REMINDER_DELAY_SECONDS), TRUST_PROXY: '1' },
    { checkoutAtItsBaseUrl: true },
  );
  const shop = useReceivingMerchant(stack, 'Lineage Store');

  let clients = 0;
  /** Each customer from an address of their own (TRUST_PROXY 1 reads X-Forwarded-For), so no per-client limit is under test. */
  const freshClient = () => `198.51.100.${++clients}`;

  const linkCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links${path}`, {
      method,
      headers: { authorization: `Bearer ${shop.merchant.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as PaymentLink;
  };
  async function createLink(extra: { maxUses?: number; expiresAt?: string; recovery?: boolean } = {}): Promise<PaymentLink> {
    const { cartObject } = validCartRequest(shop.merchant.platformUuid);
    if (extra.recovery) cartObject.cart.recovery = { enabled: true, reminderMinutes: 120 };
    return linkCall('POST', '', {
      cartObject,
      ...(extra.maxUses ? { maxUses: extra.maxUses } : {}),
      ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}),
    });
  }
  const linkNow = (id: string) => linkCall('GET', `/${id}`);

  const tokenOf = (res: Response) => new URL(res.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;
  async function visit(url: string): Promise<string> {
    const res = await fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': freshClient() } });
    expect(res.status, `visit of ${url}`).toBe(303);
    return tokenOf(res);
  }

  /** A customer on the page: code sent (the reminder asked for when `remind`) and verified; answers their Pay. */
  async function verified(cartId: string, remind = false) {
    const client = freshClient();
    const at = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, at, fields, { 'x-forwarded-for': client });
    expect((await post('/contact', { contact: 'jane.doe@example.com', ...(remind ? { remind: '1' } : {}) })).status).toBe(303);
    expect((await post('/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    return async (number: string) => {
      const res = await post('/card', { number, expiry: '12/30', cvv: '123' });
      return { status: res.status, text: await res.text() };
    };
  }

  const order = async (cartId: string) => (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;
  const settled = (cartId: string) =>
    waitFor(
      async () => {
        const now = await order(cartId);
        return now.status === 'pending' || now.status === 'processing' ? undefined : now;
      },
      { timeoutMs: 30_000, what: `the outcome of ${cartId}` },
    );
  const retry = (cartId: string) =>
    fetch(`${stack.apiUrl}/v2/merchant/carts/${cartId}/retry`, { method: 'POST', headers: { authorization: `Bearer ${shop.merchant.apiKey}` } });

  it('sells a maxUses 1 link once: S2’s Pay is refused after S1 paid, S3’s recovery is refused once the link is closed and expired', async () => {
    const link = await createLink({ maxUses: 1, recovery: true, expiresAt: new Date(Date.now() + 15_000).toISOString() });
    const [s1, s2, s3] = [await visit(link.url), await visit(link.url), await visit(link.url)];
    const pay1 = await verified(s1);
    const pay2 = await verified(s2);
    await verified(s3, true);

    await pay1(SANDBOX_CARDS.approved);
    expect((await settled(s1)).status).toBe('paid');
    expect(await linkNow(link.id)).toMatchObject({ paid: 1, status: 'used_up' });

    const refused = await pay2(SANDBOX_CARDS.approved);
    expect.soft(refused.status).toBe(422);
    expect.soft(refused.text).toContain(REFUSED);
    expect.soft((await order(s2)).status).toBe('pending');

    await linkCall('PATCH', `/${link.id}`, { active: false });
    const abandoned = await waitFor(async () => ((await order(s3)).status === 'abandoned' ? order(s3) : undefined), {
      timeoutMs: (LIFETIME_SECONDS + 30) * 1000,
      what: 'S3 abandoned',
    });
    expect(abandoned.recoveryUrl).toEqual(expect.any(String));
    // S3's customer is not reminded with a link that opens nothing (a due reminder is sent within a second or two of its delay).
    await new Promise((resolve) => setTimeout(resolve, (REMINDER_DELAY_SECONDS + 6) * 1000));
    expect.soft((await stack.db`select reminder_sent_at from carts where cart_id = ${s3}`)[0]!.reminder_sent_at).toBeNull();
    const recovery = await fetch(abandoned.recoveryUrl!, { redirect: 'manual', headers: { 'x-forwarded-for': freshClient() } });
    expect.soft(recovery.status).toBe(410);
    expect.soft(await recovery.text()).toContain(REFUSED);
    expect.soft(await stack.db`select cart_id from carts where recovered_from = ${s3}`).toHaveLength(0);

    expect((await linkNow(link.id)).paid).toBe(1);
  });

  it('pays exactly one of three sessions of a maxUses 1 link that press Pay at once', async () => {
    const link = await createLink({ maxUses: 1 });
    const sessions = [await visit(link.url), await visit(link.url), await visit(link.url)];
    const pays = await Promise.all(sessions.map((cartId) => verified(cartId)));
    const answers = await Promise.all(pays.map((pay) => pay(SANDBOX_CARDS.approved)));
    await waitFor(async () => ((await linkNow(link.id)).paid > 0 ? true : undefined), { timeoutMs: 30_000, what: 'a paid session' });
    const statuses = await Promise.all(sessions.map(async (cartId) => (await order(cartId)).status));
    expect(statuses.sort()).toEqual(['paid', 'pending', 'pending']);
    expect(answers.filter((answer) => answer.text.includes(REFUSED))).toHaveLength(2);
    expect(await linkNow(link.id)).toMatchObject({ paid: 1, status: 'used_up' });
  });

  it('releases the use of a declined payment, and refuses to retry it once the link is used up', async () => {
    const link = await createLink({ maxUses: 1 });
    const [declined, paying] = [await visit(link.url), await visit(link.url)];
    const [payDeclined, pay] = [await verified(declined), await verified(paying)];
    await payDeclined(SANDBOX_CARDS.declined);
    expect((await settled(declined)).status).toBe('failed');
    await pay(SANDBOX_CARDS.approved);
    expect((await settled(paying)).status).toBe('paid');

    const refused = await retry(declined);
    expect.soft(refused.status).toBe(409);
    expect.soft(await refused.json()).toMatchObject({ code: 'SESSION_NOT_RETRYABLE', message: expect.stringMatching(/payment link/) });
    expect(await stack.db`select cart_id from carts where retry_of = ${declined}`).toHaveLength(0);
  });

  it('keeps paymentLinkId through a retry and a recovery, in the order and in every webhook event', async () => {
    const link = await createLink({ recovery: true });
    const [failing, walkingAway] = [await visit(link.url), await visit(link.url)];
    await (
      await verified(failing)
    )(SANDBOX_CARDS.declined);
    await verified(walkingAway, true);
    expect((await settled(failing)).status).toBe('failed');

    const retried = await retry(failing);
    expect(retried.status).toBe(200);
    const { cartId: retryId } = (await retried.json()) as { cartId: string };
    await (
      await verified(retryId)
    )(SANDBOX_CARDS.approved);
    expect(await settled(retryId)).toMatchObject({ status: 'paid', retryOf: failing, paymentLinkId: link.id });

    const abandoned = await waitFor(async () => ((await order(walkingAway)).status === 'abandoned' ? order(walkingAway) : undefined), {
      timeoutMs: (LIFETIME_SECONDS + 30) * 1000,
      what: 'the session abandoned',
    });
    const recoveredId = await visit(abandoned.recoveryUrl!);
    await (
      await verified(recoveredId)
    )(SANDBOX_CARDS.approved);
    expect(await settled(recoveredId)).toMatchObject({ status: 'paid', recoveredFrom: walkingAway, paymentLinkId: link.id });

    for (const cartId of [retryId, recoveredId]) {
      await waitFor(() => shop.signedEvents(cartId, 'order_created')[0], { timeoutMs: 30_000, what: `order_created of ${cartId}` });
      const events = shop.receiver.requests
        .map((r) => verifyWebhook(r.rawBody, r.headers, shop.merchant.webhookSecret))
        .flatMap((v) => (v.valid && v.event.data.cartId === cartId ? [v.event] : []));
      expect(events.map((e) => [e.event, e.data.paymentLinkId])).toEqual(events.map((e) => [e.event, link.id]));
    }
    expect(await linkNow(link.id)).toMatchObject({ paid: 2 });
  });
});
