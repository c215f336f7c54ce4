import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { setMerchantSavedCards } from '../../core/merchants/merchants.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { ensureSavedCardRemovalSchedule } from '../../workflows/saved-card-removal/client.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { axeViolations, describeViolations } from '../support/axe.js';
import { horizontalOverflow, skipWithoutChromium, untilStepReady, type WatchedPage } from '../support/chromium.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useReceivingMerchant, type ReceivingMerchant } from '../support/receiving-merchant.js';
import { seedSavedCard } from '../support/saved-cards.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Saved cards at 375 px (docs/saved-cards.md), as a returning customer meets them: a card saved at one
 * store is offered at another after the code to the same contact, and paid in one step; nothing of it
 * shows before the code, at a store that turned saved cards off, or once the customer removed it.
 */
describe.skipIf(skipWithoutChromium())('saved cards in the hosted checkout', () => {
  const checkout = useBrowserCheckout({ name: 'Store Z' });
  const { stack } = checkout;
  const storeA = useReceivingMerchant(stack, 'Store A');
  const storeB = useReceivingMerchant(stack, 'Store B');
  const storeOff = useReceivingMerchant(stack, 'Store C');
  // One contact of this file's own: saved cards follow the contact across stores and sessions.
  const contact = `returning-${randomUUID().slice(0, 8)}@example.com`;

  beforeAll(async () => {
    await setMerchantSavedCards(stack.db, storeOff.merchant.platformUuid, false);
    // As the worker creates it at start: a customer's removal starts a run of it at once.
    await ensureSavedCardRemovalSchedule(stack.temporal.client, stack.config);
  });

  const createCart = (store: ReceivingMerchant) => {
    const body = validCartRequest(store.merchant.platformUuid);
    const site = checkout.merchant().baseUrl;
    body.cartObject.cart.merchantUrls = { successUrl: `${site}/success`, failureUrl: `${site}/failure` };
    return createCartId(stack.apiUrl, body);
  };

  /** What the page says of saved cards, wherever it says it. */
  const savedCardTraces = async (page: Page) => {
    const text = await page.locator('body').innerText();
    return ['•••• 1111', 'Save this card for faster checkout', 'Manage saved cards', 'Use another card', 'saved card'].filter((trace) =>
      text.toLowerCase().includes(trace.toLowerCase()),
    );
  };

  /** A fresh browser (its own context) at the store's checkout, through the code to the card step; nothing of saved cards shows before. */
  async function toCardStep(store: ReceivingMerchant): Promise<{ page: Page; cartId: string; watched: WatchedPage }> {
    const cartId = await createCart(store);
    const watched = await checkout.open(`/?token=${cartId}`);
    const { page } = watched;
    expect(await savedCardTraces(page)).toEqual([]);
    await page.getByLabel('Phone or email').fill(contact);
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await untilStepReady(page, { name: 'code' });
    expect(await savedCardTraces(page)).toEqual([]);
    await page.getByLabel('One-time code').fill('123456');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('[data-step="card"]').waitFor();
    await untilStepReady(page);
    return { page, cartId, watched };
  }

  const events = (store: ReceivingMerchant, cartId: string, name: string): WebhookEventBody[] =>
    store.receiver.requests
      .map((r) => verifyWebhook(r.rawBody, r.headers, store.merchant.webhookSecret))
      .flatMap((v) => (v.valid && v.event.data.cartId === cartId && v.event.event === name ? [v.event] : []));

  const orderCreated = async (store: ReceivingMerchant, cartId: string) =>
    waitFor(() => events(store, cartId, 'order_created')[0], { what: `order_created of ${cartId}` });

  const charges = async (cartId: string) =>
    (await stack.db<{ n: number }[]>`select count(*)::int as n from sandbox_charges where idempotency_key = ${cartId}`)[0]!.n;

  it('saved at store A, offered at store B after the code, paid in one step; not offered where turned off; gone once removed', async () => {
    // Store A: the consent is there, unticked; ticked, the card is saved with the payment.
    const atA = await toCardStep(storeA);
    const consent = atA.page.getByLabel('Save this card for faster checkout');
    expect(await consent.isChecked()).toBe(false);
    expect(await atA.page.getByText('at any store that uses Hosted Checkout').count()).toBe(1);
    await atA.page.getByLabel('Card number').fill('4111 1111 1111 1111');
    await atA.page.getByLabel('Expiry (MM/YY)').fill('12/30');
    await atA.page.getByLabel('CVV').fill('123');
    await consent.check();
    await atA.page.getByRole('button', { name: 'Pay', exact: true }).click();
    await checkout.landsOn(atA.watched, '/success');
    expect((await orderCreated(storeA, atA.cartId)).data.payment).toMatchObject({ last4: '1111', savedCard: false });

    // Store B, a fresh browser: after the code the saved card is the choice, selected; Pay charges it once.
    const atB = await toCardStep(storeB);
    const saved = atB.page.getByRole('radio', { name: /Visa •••• 1111/ });
    expect(await saved.isChecked()).toBe(true);
    const savedId = await saved.inputValue();
    expect(await atB.page.getByText('expires 12/30').first().isVisible()).toBe(true);
    expect(await atB.page.getByText('Use another card').isVisible()).toBe(true);
    expect(await atB.page.getByLabel('Card number').isVisible()).toBe(false);
    // Accessible, and within 375 px, with both disclosures open.
    await atB.page.locator('.another-card summary').click();
    await atB.page.locator('.manage-saved-cards summary').click();
    const violations = await axeViolations(atB.page);
    expect(violations, describeViolations(violations)).toEqual([]);
    expect(await horizontalOverflow(atB.page)).toBe(0);
    await atB.page.locator('.another-card summary').click();
    await atB.page.getByRole('button', { name: 'Pay', exact: true }).first().click();
    await checkout.landsOn(atB.watched, '/success');
    const paidB = await orderCreated(storeB, atB.cartId);
    expect(paidB.data).toMatchObject({ status: 'paid', payment: { brand: 'visa', last4: '1111', savedCard: true } });
    expect(await charges(atB.cartId)).toBe(1);
    const order = await storeB.api.get(`/orders/${atB.cartId}`);
    expect((await order.json()) as unknown).toMatchObject({ payment: { savedCard: true } });
    // The merchant sees brand, last 4 and savedCard: no reference of ours or the processor's.
    expect(JSON.stringify(paidB)).not.toMatch(/sc_[A-Za-z0-9_-]{24}|pm_sbx_/);

    // "Use another card" opens the usual fields.
    const another = await toCardStep(storeB);
    await another.page.getByText('Use another card').click();
    expect(await another.page.getByLabel('Card number').isVisible()).toBe(true);

    // A store that turned saved cards off offers neither the card nor the consent.
    const off = await toCardStep(storeOff);
    expect(await savedCardTraces(off.page)).toEqual([]);
    expect(await off.page.getByLabel('Card number').isVisible()).toBe(true);

    const [{ payment_method_ref: paymentMethodRef } = { payment_method_ref: '' }] = await stack.db<{ payment_method_ref: string }[]>`
      select payment_method_ref from saved_cards where id = ${savedId}`;
    expect(paymentMethodRef).toMatch(/^pm_sbx_/);

    // Manage saved cards: removed, the card is offered no more, here or in a new session, and the processor lets it go.
    await another.page.getByText('Manage saved cards').click();
    await another.page.getByRole('button', { name: 'Remove Visa •••• 1111' }).click();
    await another.page.getByText('The card was removed').waitFor();
    expect(await another.page.getByRole('radio', { name: /•••• 1111/ }).count()).toBe(0);
    const after = await toCardStep(storeB);
    expect(await after.page.getByRole('radio').count()).toBe(0);
    expect(await after.page.getByLabel('Save this card for faster checkout').isChecked()).toBe(false);
    await waitFor(
      async () => {
        const kept = await stack.db`select 1 from saved_cards where id = ${savedId}`;
        const [reference] = await stack.db<{ detached: boolean }[]>`
          select detached_at is not null as detached from sandbox_payment_methods where reference = ${paymentMethodRef}`;
        return kept.length === 0 && reference?.detached ? true : undefined;
      },
      { what: 'the removal run to detach the card at the processor and delete its row' },
    );
  });

  it('a second browser with the cartId sees the contact step and no card; a fresh code to the contact makes it the one that acts', async () => {
    const returning = `second-browser-${randomUUID().slice(0, 8)}@example.com`;
    await seedSavedCard(stack, returning, '4111111111111111', `earlier-${returning}`);
    const cartId = await createCart(storeB);
    const first = await checkout.open(`/?token=${cartId}`);
    await first.page.getByLabel('Phone or email').fill(returning);
    await first.page.getByRole('button', { name: 'Send code', exact: true }).click();
    await untilStepReady(first.page, { name: 'code' });
    await first.page.getByLabel('One-time code').fill('123456');
    await first.page.getByRole('button', { name: 'Verify', exact: true }).click();
    expect(await first.page.getByRole('radio', { name: /Visa •••• 1111/ }).isChecked()).toBe(true);

    // The merchant's cartId in another browser: the masked contact and a way to prove it, nothing else.
    const second = await checkout.open(`/?token=${cartId}`);
    await second.page.locator('[data-step="rebind"]').waitFor();
    expect(await savedCardTraces(second.page)).toEqual([]);
    expect(await second.page.getByLabel('Card number').count()).toBe(0);
    const violations = await axeViolations(second.page);
    expect(violations, describeViolations(violations)).toEqual([]);
    await second.page.getByRole('button', { name: 'Send a code to s***@example.com' }).click();
    await untilStepReady(second.page, { name: 'code' });
    await second.page.getByLabel('One-time code').fill('123456');
    await second.page.getByRole('button', { name: 'Verify', exact: true }).click();
    await second.page.locator('[data-step="card"]').waitFor();
    expect(await second.page.getByRole('radio', { name: /Visa •••• 1111/ }).isChecked()).toBe(true);

    // The first browser now needs a code of its own; the cart is still open, unpaid.
    await first.page.reload();
    await first.page.locator('[data-step="rebind"]').waitFor();
    expect(await savedCardTraces(first.page)).toEqual([]);
    expect(await charges(cartId)).toBe(0);
  });
});
