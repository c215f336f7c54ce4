import { beforeAll, describe, expect, it } from 'vitest';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import type { Order } from '../../core/orders/order-schema.js';
import { postCheckoutForm, visitCheckout, type Visit } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * Only the browser that entered the code acts for the customer (docs/security.md, "One browser"); the
 * cartId, which the merchant, its logs and its return URLs hold, is not enough. And saved cards belong
 * to the exact contact verified, not to the code limits' fold of it (docs/saved-cards.md).
 */
describe('the verifying browser holds the session', () => {
  const stack = useTestStack();
  let merchantA: Awaited<ReturnType<typeof stack.createMerchant>>;
  let merchantB: Awaited<ReturnType<typeof stack.createMerchant>>;
  beforeAll(async () => {
    [merchantA, merchantB] = [await stack.createMerchant({ name: 'Merchant A' }), await stack.createMerchant({ name: 'Merchant B' })];
  });

  const cartAt = (merchant: { platformUuid: string }) => createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
  const post = (visit: Visit, cartId: string, path: string, fields: Record<string, string> = {}) =>
    postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields);
  const page = async (visit: Visit, cartId: string) => (await fetch(`${stack.checkoutUrl}/?token=${cartId}`, { headers: { cookie: visit.cookie } })).text();
  const orderOf = async (merchant: { apiKey: string }, cartId: string) =>
    (await (await merchantApi(stack, merchant.apiKey).get(`/orders/${cartId}`)).json()) as Order;
  const liveCards = async (key: string) =>
    (await stack.db<{ n: number }[]>`select count(*)::int as n from saved_cards where contact_key = ${key} and removed_at is null`)[0]!.n;

  /** A browser that opens the cart's page and proves `contact` with the sandbox code: at the card step. */
  async function verifiedBrowser(cartId: string, contact: string): Promise<Visit> {
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    expect((await post(visit, cartId, '/contact', { contact })).status).toBe(303);
    expect((await post(visit, cartId, '/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    return visit;
  }

  /** `contact` saves 4111 1111 1111 1111 by paying with it at merchant B, as a customer does. */
  async function saveCardAtB(contact: string) {
    const cartId = await cartAt(merchantB);
    const visit = await verifiedBrowser(cartId, contact);
    expect((await post(visit, cartId, '/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123', save: '1' })).status).toBe(303);
    expect((await orderOf(merchantB, cartId)).status).toBe('paid');
  }

  it('another browser with the cartId sees neither the saved card nor the card step, and can neither pay, remove nor cancel', async () => {
    const contact = 'binding-owner@example.com';
    await saveCardAtB(contact);
    const cartId = await cartAt(merchantA);
    const customer = await verifiedBrowser(cartId, contact);
    expect(customer.cookie).toMatch(/checkout_browser=/);
    const offered = await page(customer, cartId);
    const savedCardId = offered.match(/name="savedCard" value="(sc_[A-Za-z0-9_-]+)"/)?.[1];
    expect(savedCardId, 'the verifying browser is offered the saved card').toBeDefined();

    // A fresh client holding only the cartId, with a CSRF pair of its own.
    const stranger = await visitCheckout(stack.checkoutUrl, cartId);
    expect(stranger.html).not.toContain('•••• 1111');
    expect(stranger.html).not.toContain(savedCardId!);
    expect(stranger.html).toContain('data-step="rebind"');
    expect(stranger.html).toContain('b***@example.com');

    for (const [path, fields] of [
      ['/card', { savedCard: savedCardId! }],
      ['/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' }],
      ['/saved-cards/remove', { all: '1' }],
      ['/cancel', {}],
    ] as const) {
      const refused = await post(stranger, cartId, path, fields);
      expect(refused.status, `${path} ${JSON.stringify(fields)}`).toBe(403);
      const body = await refused.text();
      expect(body).not.toContain('•••• 1111');
    }
    expect(await orderOf(merchantA, cartId)).toMatchObject({ status: 'pending', payment: null });
    expect(await liveCards(savedCardContactKey(stack.config.keyring, contact))).toBe(1);

    // The customer's own browser still pays with its saved card, in one step.
    const paid = await post(customer, cartId, '/card', { savedCard: savedCardId! });
    expect(paid.status).toBe(303);
    expect(await orderOf(merchantA, cartId)).toMatchObject({ status: 'paid', payment: { savedCard: true, last4: '1111' } });
  });

  it('another browser acts only after a fresh code sent to the verified contact; its wrong codes never end the session', async () => {
    const cartId = await cartAt(merchantA);
    const customer = await verifiedBrowser(cartId, 'binding-second@example.com');
    const other = await visitCheckout(stack.checkoutUrl, cartId);
    expect(other.html).toContain('action="/resend-code"');

    expect((await post(other, cartId, '/resend-code')).status).toBe(303);
    const asked = await page(other, cartId);
    expect(asked).toContain('data-step="rebind"');
    expect(asked).toContain('name="code"');
    for (let i = 0; i < 2; i++) {
      const wrong = await post(other, cartId, '/code', { code: '000000' });
      expect(wrong.status).toBe(422);
      expect(await wrong.text()).toContain('That code is not right');
    }
    expect((await orderOf(merchantA, cartId)).status).toBe('pending');

    expect((await post(other, cartId, '/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    expect(await page(other, cartId)).toContain('data-step="card"');
    // The last browser to prove the contact holds the session; the first now needs a code of its own.
    expect(await page(customer, cartId)).toContain('data-step="rebind"');
    expect((await post(other, cartId, '/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' })).status).toBe(303);
    expect((await orderOf(merchantA, cartId)).status).toBe('paid');
  });

  it('offers saved cards to the exact contact only: a +tag elsewhere is another mailbox', async () => {
    await saveCardAtB('canary@example.com');
    const tagged = await cartAt(merchantA);
    const visit = await verifiedBrowser(tagged, 'Canary+someone-else@EXAMPLE.com');
    const card = await page(visit, tagged);
    expect(card).toContain('data-step="card"');
    expect(card).not.toContain('•••• 1111');

    // At a provider known to ignore tags and dots (Gmail), they are one mailbox.
    await saveCardAtB('jane.doe@gmail.com');
    const gmail = await cartAt(merchantA);
    expect(await page(await verifiedBrowser(gmail, 'janedoe+shop@googlemail.com'), gmail)).toContain('•••• 1111');
  });

  it('re-keys a card saved under the code limits’ fold to the contact whose exact form it is, and offers it to no other', async () => {
    const contact = 'legacy-card@example.com';
    const legacyKey = otpDestinationKey(stack.config.keyring, contact);
    await stack.db`
      insert into saved_cards (id, contact_key, processor, payment_method_ref, brand, last4, exp_month, exp_year)
      values ('sc_legacy_binding_test_1', ${legacyKey}, 'sandbox', 'pm_sbx_legacy_binding', 'visa', '4242', 12, 2030)`;

    const tagged = await cartAt(merchantA);
    expect(await page(await verifiedBrowser(tagged, 'legacy-card+x@example.com'), tagged)).not.toContain('•••• 4242');
    expect(await liveCards(legacyKey)).toBe(1);

    const exact = await cartAt(merchantA);
    expect(await page(await verifiedBrowser(exact, contact), exact)).toContain('•••• 4242');
    expect(await liveCards(legacyKey)).toBe(0);
    expect(await liveCards(savedCardContactKey(stack.config.keyring, contact))).toBe(1);
  });
});
