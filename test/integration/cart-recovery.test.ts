import { describe, expect, it } from 'vitest';
import type { Cart, CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { RECOVERY_LINK_DAYS, recoveryUrl } from '../../core/checkout/recovery-token.js';
import { insightSummary } from '../../core/insights/insights.js';
import type { Order } from '../../core/orders/order-schema.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** Short enough to watch a session be abandoned, long enough to pay the recovered one on a loaded machine. */
const LIFETIME_SECONDS = 20;

/**
 * Abandoned-cart recovery's link (docs/abandoned-cart-recovery.md): an abandoned session of a cart
 * with recovery enabled says `recoveryUrl` in its order_abandoned and in the Order API alike; the link
 * opens one new session of the same cart, `recoveredFrom` the abandoned one, and nothing else.
 */
describe('abandoned-cart recovery links', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS) }, { checkoutAtItsBaseUrl: true });
  const shop = useReceivingMerchant(stack, 'Second Look Store');

  async function keyedCart(edit: (cart: Cart) => void): Promise<string> {
    const request: CreateCartRequest = validCartRequest(shop.merchant.platformUuid);
    edit(request.cartObject.cart);
    const res = await postCart(stack.apiUrl, request, { authorization: `Bearer ${shop.merchant.apiKey}` });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return (JSON.parse(text) as { data: { cartId: string } }).data.cartId;
  }

  const eventOf = (cartId: string, event: string) =>
    waitFor(
      () =>
        [...shop.receiver.processed.values()]
          .map((request) => verifyWebhook(request.rawBody, request.headers, shop.merchant.webhookSecret))
          .flatMap((verified) => (verified.valid ? [verified.event] : []))
          .find((body) => body.event === event && body.data.cartId === cartId),
      { timeoutMs: 90_000, what: `${event} of ${cartId}` },
    );
  const order = async (cartId: string) => (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;
  const visit = (url: string, headers: Record<string, string> = {}) => fetch(url, { redirect: 'manual', headers });
  const tokenOf = (res: Response) => new URL(res.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;

  it('carries the link in order_abandoned and the Order API; it opens one session of the same cart, then says the order is paid', async () => {
    const abandoned = await keyedCart((cart) => (cart.recovery = { enabled: true, reminderMinutes: 120 }));
    const plain = await keyedCart(() => {});

    const event = await eventOf(abandoned, 'order_abandoned');
    const url = event.data.recoveryUrl;
    expect(url).toMatch(new RegExp(`^${stack.config.checkoutBaseUrl}/r/[A-Za-z0-9_-]{22,}$`));
    expect(url).not.toContain(abandoned);
    expect(await order(abandoned)).toMatchObject({ status: 'abandoned', recoveryUrl: url, recoveredFrom: null });
    expect((await eventOf(plain, 'order_abandoned')).data.recoveryUrl).toBeNull();
    expect((await order(plain)).recoveryUrl).toBeNull();

    const first = await visit(url!);
    expect(first.status).toBe(303);
    const recovered = tokenOf(first);
    expect(recovered).not.toBe(abandoned);
    const original = await order(abandoned);
    expect(await order(recovered)).toMatchObject({
      status: 'pending',
      recoveredFrom: abandoned,
      recoveryUrl: null,
      createdWith: 'api_key',
      items: original.items,
      extra: original.extra,
    });
    // The checkout page of the new session is the usual one.
    expect((await fetch(`${stack.checkoutUrl}/?token=${recovered}`)).status).toBe(200);

    // A second visit, while that session is open, goes to it: one abandoned cart never has two sessions to pay.
    const second = await visit(url!);
    expect({ status: second.status, token: tokenOf(second) }).toEqual({ status: 303, token: recovered });
    expect(await stack.db`select cart_id from carts where recovered_from = ${abandoned}`).toHaveLength(1);

    const session = { cartId: recovered, handle: shop.driver.handleOf(recovered) };
    await shop.driver.sendCode(session);
    await shop.driver.verify(session, await shop.driver.sentCode(session));
    expect((await shop.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    expect((await eventOf(recovered, 'order_created')).data.recoveredFrom).toBe(abandoned);
    // Insights count it as a recovered session, paid, with what it charged.
    const { recoveries } = await insightSummary(stack.db, {
      merchant: { platformUuid: shop.merchant.platformUuid, environment: stack.config.environment },
      days: 1,
    });
    expect(recoveries).toEqual({ sessions: 1, paid: 1, revenue: [{ currency: 'EUR', amount: (await order(recovered)).amount }] });

    const paid = await visit(url!, { 'accept-language': 'de' });
    expect(paid.status).toBe(410);
    const text = await paid.text();
    expect(text).toContain('Diese Bestellung ist bereits bezahlt');
    expect(text).toContain('Test Store');
  });

  it('answers 404 to a tampered or unknown token and 410 to an expired one, in the customer’s language', async () => {
    const known = await keyedCart((cart) => (cart.recovery = { enabled: true }));
    const url = recoveryUrl(stack.config, known, new Date());
    const token = url.split('/r/')[1]!;
    const tampered = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    for (const bad of [tampered, 'not-a-token', known]) {
      const res = await visit(`${stack.checkoutUrl}/r/${bad}`, { 'accept-language': 'fr' });
      expect(res.status, bad).toBe(404);
      expect(await res.text()).toContain('Paiement introuvable');
    }
    // A cart that is not abandoned (still pending) has no recovery to open, whatever the token says.
    expect((await visit(url)).status).toBe(404);
    const expired = recoveryUrl(stack.config, known, new Date(Date.now() - (RECOVERY_LINK_DAYS * 24 + 1) * 3_600_000));
    const res = await visit(expired, { 'accept-language': 'es' });
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('Este enlace ha caducado');
    expect(await stack.db`select cart_id from carts where recovered_from = ${known}`).toHaveLength(0);
  });
});
