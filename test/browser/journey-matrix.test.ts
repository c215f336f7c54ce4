/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { SANDBOX_CARDS, SANDBOX_CHALLENGE_PATH } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Order } from '../../core/orders/order-schema.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { direction, t, type MessageKey } from '../../web/i18n/index.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { startCartSession } from '../../workflows/cart-session/client.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { launchChromium, openPage, skipWithoutChromium, untilStepReady } from '../support/chromium.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { startMerchantSite, type MerchantSite } from '../support/merchant-site.js';
import { pairwise } from '../support/pairwise.js';
import { seedSavedCard } from '../support/saved-cards.js';
import { useTestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The product's axes. A journey is one value of each; the suite walks a pairwise set of them (every
 * value of every axis meets every value of every other axis in some journey). A new value is one more
 * entry here, plus its line in the table of that axis below (the compiler asks for it).
 */
const AXES = {
  capture: ['automatic', 'manual'],
  /** `saved`: the customer saved 4111 1111 1111 1111 at an earlier checkout and pays with it in one step after the code (docs/saved-cards.md). */
  card: ['approved', 'declined', 'challenge_completed', 'challenge_failed', 'frictionless', 'saved'],
  currency: ['JPY', 'EUR', 'KWD'],
  language: ['en', 'ar'],
  /** `all`: one endpoint subscribed to `*`. `all_and_created`: that one plus one subscribed to `order_created` only. */
  endpoints: ['all', 'all_and_created'],
  /**
   * How the session was minted: `direct` by create-cart; `payment_link` by a visit of a link the
   * merchant created with the same cart; `retry` by POST /v2/merchant/carts/{cartId}/retry of the same
   * cart declined first; `recovery` by the recoveryUrl of the same cart's abandoned session.
   */
  entry: ['direct', 'payment_link', 'retry', 'recovery'],
  /**
   * Who holds the page: `verifying`, the customer's browser alone; `second_browser`, also another
   * browser with the same cartId once the customer verified, which must see neither the card step nor
   * a saved card, and whose Pay is refused (docs/decisions/security.md, "One browser").
   */
  actor: ['verifying', 'second_browser'],
  /**
   * What follows the payment: `disputed`, the customer disputes a paid order (the sandbox helper, POST
   * /v2/sandbox/carts/{cartId}/dispute) and the merchant accepts it: order_disputed then order_updated
   * (lost) at `*`, the dashboard's order page showing the dispute; an unpaid order cannot be disputed.
   */
  after: ['nothing', 'disputed'],
} as const;

type Axis<K extends keyof typeof AXES> = (typeof AXES)[K][number];
type Journey = { [K in keyof typeof AXES]: Axis<K> };

interface CardBehaviour {
  number: string;
  last4: string;
  /** The sandbox challenge page's button the cardholder presses, when the card asks for a challenge. */
  challenge?: MessageKey;
  approved: boolean;
  threeDSecure: 'not_required' | 'authenticated' | 'failed' | 'frictionless';
  failureCode?: string;
  /** Saved at an earlier checkout: chosen after the code, no number typed. */
  saved?: boolean;
}

const CARDS: Record<Axis<'card'>, CardBehaviour> = {
  approved: { number: '4111 1111 1111 1111', last4: '1111', approved: true, threeDSecure: 'not_required' },
  declined: { number: '4000 0000 0000 0002', last4: '0002', approved: false, threeDSecure: 'not_required', failureCode: 'card_declined' },
  challenge_completed: { number: '4000 0027 6000 3184', last4: '3184', challenge: 'threeDSecure.complete', approved: true, threeDSecure: 'authenticated' },
  challenge_failed: {
    number: '4000 0027 6000 3184',
    last4: '3184',
    challenge: 'threeDSecure.fail',
    approved: false,
    threeDSecure: 'failed',
    failureCode: 'authentication_failed',
  },
  frictionless: { number: '4000 0000 0000 3055', last4: '3055', approved: true, threeDSecure: 'frictionless' },
  saved: { number: '4111111111111111', last4: '1111', approved: true, threeDSecure: 'not_required', saved: true },
};

interface CurrencyCart {
  country: string;
  /** Unit prices in the currency's minor units (ISO 4217 exponent 0, 2 or 3). */
  items: Array<{ price: number; quantity: number }>;
  /** Their total, in minor units: what the order, the webhooks and the sandbox processor must all say. */
  total: number;
  /** How the checkout page shows the total, per language (whitespace and direction marks aside), and the dashboard (en). */
  shown: Record<Axis<'language'>, string>;
}

const CURRENCIES: Record<Axis<'currency'>, CurrencyCart> = {
  // Exponent 0: 1 234 yen.
  JPY: {
    country: 'JP',
    items: [
      { price: 500, quantity: 2 },
      { price: 234, quantity: 1 },
    ],
    total: 1234,
    shown: { en: '¥1,234', ar: '1,234 JP¥' },
  },
  // Exponent 2: 44.98 euros.
  EUR: {
    country: 'IE',
    items: [
      { price: 1999, quantity: 2 },
      { price: 500, quantity: 1 },
    ],
    total: 4498,
    shown: { en: '€44.98', ar: '44.98 €' },
  },
  // Exponent 3: 12.340 dinars; a three-decimal total ends in 0, as Stripe, the production processor, requires.
  KWD: { country: 'KW', items: [{ price: 6170, quantity: 2 }], total: 12340, shown: { en: 'KWD 12.340', ar: '12.340 د.ك.' } },
};

/** What the filtered endpoint of the `all_and_created` layout subscribes to. */
const FILTERED_EVENTS = ['order_created'] as const;

/**
 * Journeys walked at once: each is a Chromium page plus the stack's work behind it, on a 2-core
 * machine, and mostly waits (the page, the processor, the webhooks). On a busy one (load average 11)
 * the 15 took 56 s two at a time, 61 s three, 52 s four and 44 s five (vitest's maxConcurrency):
 * three leaves room for the other files' forks when the whole suite runs.
 */
const CONCURRENCY = 3;
const JOURNEY_TIMEOUT_MS = 300_000;

const JOURNEYS: Journey[] = pairwise(AXES);
const journeyId = (index: number) => `j${String(index + 1).padStart(2, '0')}`;
const ENTRY_NAMES: Record<Axis<'entry'>, string> = {
  direct: 'created by the API',
  payment_link: 'from a payment link',
  retry: 'on a retry after a decline',
  recovery: 'from the recovery link of an abandoned session',
};
const journeyName = (j: Journey) =>
  `${j.capture} capture, ${j.card} card, ${j.currency}, ${j.language}, ${j.endpoints === 'all' ? 'one endpoint (*)' : 'two endpoints (*, order_created)'}, ${ENTRY_NAMES[j.entry]}${j.actor === 'second_browser' ? ', a second browser holding the cartId' : ''}${j.after === 'disputed' ? ', then disputed' : ''}`;

/** Text as compared: whitespace collapsed (no-break spaces included), Unicode direction marks dropped. */
const normalised = (text: string | null | undefined) =>
  (text ?? '')
    .replace(/[\u200e\u200f\u061c]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** At most `max` tasks at a time; the others wait their turn in order. */
function limiter(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, or is freed.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/** One webhook endpoint as the merchant runs it: a real receiver and the secret it verifies with. */
interface Endpoint {
  receiver: WebhookReceiver;
  secret: string;
}

/** A merchant with one endpoint layout, created once and shared by every journey of that layout. */
interface MerchantLayout {
  merchant: CreatedMerchant;
  all: Endpoint;
  filtered?: Endpoint;
  dashboard: ReturnType<typeof dashboardClient>;
}

type EventLine = [event: string, status: string];

describe.skipIf(skipWithoutChromium())('the journey matrix: every pair of capture, card, currency, language, endpoints, entry and actor, at 375 px', () => {
  // The bank's return link is built from CHECKOUT_BASE_URL: it must lead to this page. One trusted
  // proxy hop: each dashboard client says its own address, so these sign-ins never count against
  // another file's from 127.0.0.1 (the limit's hits are kept in the run's one database). A delivery
  // whose first attempts a loaded machine let time out is retried within seconds, not the production
  // table's 5 minutes: the journeys wait 30 s for every event, and still fail on one never sent.
  const stack = useTestStack({ TRUST_PROXY: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,1000,2000,4000,8000' }, { checkoutAtItsBaseUrl: true });
  let browser: Browser;
  let site: MerchantSite;
  const layouts = {} as Record<Axis<'endpoints'>, MerchantLayout>;
  const receivers: WebhookReceiver[] = [];
  const oneAtATime = limiter(CONCURRENCY);
  const walked: Array<{ id: string; ms: number; note?: string }> = [];
  let coveredPairs: number | undefined;
  let startedAt = 0;

  /** A merchant's webhook endpoint, for real, closed after the suite. */
  async function receiver(): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  }

  beforeAll(async () => {
    startedAt = Date.now();
    browser = await launchChromium();
    site = await startMerchantSite();
    for (const layout of AXES.endpoints) {
      const all = await receiver();
      const merchant = await stack.createMerchant({ name: `Matrix ${layout}`, webhookUrl: all.url });
      const entry: MerchantLayout = { merchant, all: { receiver: all, secret: merchant.webhookSecret }, dashboard: dashboardClient(stack.checkoutUrl) };
      if (layout === 'all_and_created') {
        const filtered = await receiver();
        const res = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: filtered.url, enabledEvents: FILTERED_EVENTS, description: 'Fulfilment: order_created only' }),
        });
        const created = (await res.json()) as { secret: string; enabledEvents: string[] };
        expect(res.status, JSON.stringify(created)).toBe(201);
        expect(created.enabledEvents).toEqual(FILTERED_EVENTS);
        entry.filtered = { receiver: filtered, secret: created.secret };
      }
      expect((await entry.dashboard.signIn(merchant.apiKey)).location).toBe('/dashboard/orders');
      layouts[layout] = entry;
    }
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await Promise.all(receivers.map((r) => r.close()));
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const coverage =
      coveredPairs === undefined ? 'pair coverage NOT verified' : `every pair of ${Object.keys(AXES).length} axes covered (${coveredPairs} pairs)`;
    console.log(
      `journey matrix: ${JOURNEYS.length} journeys, ${coverage}; ${walked.length} walked to the end with every check passed; ` +
        `wall time ${seconds} s at concurrency ${CONCURRENCY}\n` +
        walked
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((w) => `  ${w.id} ${(w.ms / 1000).toFixed(1)} s: ${journeyName(JOURNEYS[Number(w.id.slice(1)) - 1]!)}${w.note ? ` (${w.note})` : ''}`)
          .join('\n'),
    );
  });

  it(`covers every pair of axis values in ${JOURNEYS.length} journeys`, () => {
    const names = Object.keys(AXES) as Array<keyof typeof AXES>;
    const missing: string[] = [];
    let pairs = 0;
    for (const [i, a] of names.entries())
      for (const b of names.slice(i + 1))
        for (const va of AXES[a])
          for (const vb of AXES[b]) {
            pairs++;
            if (!JOURNEYS.some((j) => j[a] === va && j[b] === vb)) missing.push(`${a}=${va} with ${b}=${vb}`);
          }
    expect(missing, 'pairs no journey walks').toEqual([]);
    expect(JOURNEYS.length).toBeGreaterThanOrEqual(15);
    coveredPairs = pairs;
    console.log(
      `journey matrix: ${JOURNEYS.length} journeys cover all ${pairs} pairs of ${names.length} axes (the full product is ${names.reduce((n, a) => n * AXES[a].length, 1)})`,
    );
  });

  for (const [index, journey] of JOURNEYS.entries()) {
    const id = journeyId(index);
    it.concurrent(`${id}: ${journeyName(journey)}`, { timeout: JOURNEY_TIMEOUT_MS }, async ({ expect }) => {
      await oneAtATime(async () => {
        const started = Date.now();
        const note = await walk(journey, id, expect);
        walked.push({ id, ms: Date.now() - started, ...(note ? { note } : {}) });
      });
    });
  }

  async function walk(journey: Journey, id: string, expect: ExpectStatic): Promise<string | undefined> {
    const card = CARDS[journey.card];
    const currency = CURRENCIES[journey.currency];
    const layout = layouts[journey.endpoints];
    const manual = journey.capture === 'manual';
    const say = (key: MessageKey) => t(journey.language, key);
    const notes: string[] = [];

    const body: CreateCartRequest = validCartRequest(layout.merchant.platformUuid);
    const [template] = body.cartObject.cart.items;
    body.cartObject.cart.currency = journey.currency;
    body.cartObject.cart.country = currency.country;
    body.cartObject.cart.items = currency.items.map((item, n) => ({ ...template!, title: `Item ${n + 1}`, ...item }));
    body.cartObject.cart.extra = { journey: id };
    body.cartObject.cart.merchantUrls = { successUrl: `${site.baseUrl}/success?journey=${id}`, failureUrl: `${site.baseUrl}/failure?journey=${id}` };
    if (manual) body.cartObject.cart.captureMethod = 'manual';
    const retryOf = journey.entry === 'retry' ? await declinedCart(layout, body, expect) : null;
    const recoveredFrom = journey.entry === 'recovery' ? await abandonedCart(layout, body, currency.total, expect) : null;
    const link = journey.entry === 'payment_link' ? await paymentLink(layout, body, expect) : null;

    // A returning customer has a contact of their own, with the card saved at an earlier checkout.
    const contact = card.saved ? `returning-${id}@example.com` : 'customer@example.com';
    if (card.saved) await seedSavedCard(stack, contact, card.number, `earlier-checkout-${id}`);

    // The customer's walk through the page, in their language, to where the page sends them.
    const { context, page, consoleErrors, dialogs } = await openPage(browser, { width: 375 });
    let cartId: string;
    try {
      // The merchant's direct and retried sessions are opened by their cartId; a link and a recovery
      // link mint the session on the visit, and send the customer to it.
      if (journey.entry === 'direct') cartId = await createCartId(stack.apiUrl, body);
      else if (journey.entry === 'retry') cartId = await retried(layout, retryOf!, expect);
      const opening = link?.url ?? (recoveredFrom ? await recoveryUrlOf(layout, recoveredFrom, expect) : `${stack.checkoutUrl}/?token=${cartId!}`);
      const separator = opening.includes('?') ? '&' : '?';
      expect((await page.goto(`${opening}${separator}lang=${journey.language}`))?.status()).toBe(200);
      cartId = new URL(page.url()).searchParams.get('token')!;
      expect(cartId, 'the session the page opened').toMatch(/^[A-Za-z0-9_-]{20,}$/);
      if (recoveredFrom) expect(cartId).not.toBe(recoveredFrom);
      expect(await page.locator('html').getAttribute('lang')).toBe(journey.language);
      expect(await page.locator('html').getAttribute('dir')).toBe(direction(journey.language));
      expect(normalised(await page.getByTestId('total').textContent())).toBe(normalised(currency.shown[journey.language]));
      await page.getByLabel(say('contact.label')).fill(contact);
      await page.getByRole('button', { name: say('contact.submit'), exact: true }).click();
      await untilStepReady(page, { name: 'code' });
      await page.getByLabel(say('code.label')).fill('123456');
      await page.getByRole('button', { name: say('code.submit'), exact: true }).click();
      await page.locator('[data-step="card"]').waitFor();
      if (journey.actor === 'second_browser') await secondBrowserRefused(cartId, journey, card, expect);
      if (card.saved) {
        await untilStepReady(page);
        expect(await page.getByRole('radio', { name: `Visa •••• ${card.last4}` }).isChecked()).toBe(true);
        await page
          .getByRole('button', { name: say('card.submit'), exact: true })
          .first()
          .click();
      } else {
        await untilStepReady(page, { id: 'number' });
        await page.getByLabel(say('card.numberLabel')).fill(card.number);
        await page.getByLabel(say('card.expiryLabel')).fill('12/30');
        await page.getByLabel(say('card.cvvLabel')).fill('123');
        await page.getByRole('button', { name: say('card.submit'), exact: true }).click();
      }
      if (card.challenge) {
        await page.waitForURL((url) => url.pathname === SANDBOX_CHALLENGE_PATH, { timeout: 30_000 });
        expect(await page.locator('html').getAttribute('lang')).toBe(journey.language);
        await page.getByRole('button', { name: say(card.challenge), exact: true }).click();
      }
      const expectedPath = card.approved ? '/success' : '/failure';
      await landsOn(page, expectedPath, id);
      const landed = new URL(page.url());
      expect(landed.searchParams.get('cartId'), 'the cartId added to the return URL').toBe(cartId);
      expect(landed.searchParams.get('journey'), "the merchant's own query kept").toBe(id);
      expect(consoleErrors).toEqual([]);
      expect(dialogs).toEqual([]);
    } finally {
      await context.close();
    }

    // What the merchant is told. The `*` endpoint gets every event of the cart; a 3-D Secure challenge
    // is announced as processing first (docs/decisions/webhooks.md), any other card only when its
    // outcome took longer than 2 s, which a loaded machine may make happen.
    const status = !card.approved ? 'failed' : manual ? 'authorized' : 'paid';
    const outcome: EventLine = card.approved ? ['order_created', status] : ['order_updated', 'failed'];
    const order = await settled(layout, cartId, status, expect);
    const processingAnnounced = order.webhooks[0]?.event === 'order_updated' && order.webhooks.length > 1;
    if (processingAnnounced && !card.challenge) notes.push('payment slower than 2 s: processing announced');
    const expectedAll: EventLine[] = card.challenge || processingAnnounced ? [['order_updated', 'processing'], outcome] : [outcome];
    const all = eventsAt(layout.all, cartId, expect);
    expect(all.map(line), `${id}: events at the * endpoint`).toEqual(expectedAll);
    const wanted = expectedAll.filter(([event]) => (FILTERED_EVENTS as readonly string[]).includes(event));
    if (layout.filtered) expect(eventsAt(layout.filtered, cartId, expect).map(line), `${id}: events at the order_created endpoint`).toEqual(wanted);
    // One order model: the last event's data is the order the Order API gives, field for field.
    const { expiresOn: _expiresOn, refunds: _refunds, webhooks: _webhooks, ...model } = order;
    expect(all.at(-1)!.data, `${id}: the last event's data and the Order API`).toEqual(model);

    // The Order API.
    expect(order).toMatchObject({
      cartId,
      status,
      amount: currency.total,
      currency: journey.currency,
      captureMethod: journey.capture,
      capturedAmount: card.approved && !manual ? currency.total : null,
      refundedTotal: 0,
      failureCode: card.failureCode ?? null,
      payment: { brand: 'visa', last4: card.last4, threeDSecure: { result: card.threeDSecure }, savedCard: card.saved === true },
      customer: { email: contact },
      paidAt: card.approved ? expect.any(String) : null,
      extra: { journey: id },
      retryOf,
      recoveredFrom,
      paymentLinkId: link?.id ?? null,
    });

    // What the sandbox processor charged (or authorized), in its unit: ISO 4217 minor units, so the cart total.
    const charged = await sandboxCharge(cartId);
    expect(charged, `${id}: the sandbox charge`).toEqual(card.approved ? [{ amount: currency.total, currency: journey.currency, capturedAmount: null }] : []);

    // The dashboard's row for the order.
    expect(await dashboardRow(layout, id, cartId)).toEqual({ status: status, amount: normalised(currency.shown.en) });

    // A manual authorization is captured through the API: charged in full, announced to `*` only.
    if (manual && card.approved) {
      const captured = await merchantApi(stack, layout.merchant.apiKey).capture(cartId);
      const answer = (await captured.json()) as Order;
      expect(captured.status, JSON.stringify(answer)).toBe(200);
      expect(answer).toMatchObject({ status: 'paid', capturedAmount: currency.total });
      await settled(layout, cartId, 'paid', expect);
      const after = eventsAt(layout.all, cartId, expect);
      expect(after.map(line)).toEqual([...expectedAll, ['order_updated', 'paid']]);
      expect(after.at(-1)!.data).toMatchObject({
        status: 'paid',
        amount: currency.total,
        captureMethod: 'manual',
        capturedAmount: currency.total,
      });
      if (layout.filtered) expect(eventsAt(layout.filtered, cartId, expect).map(line), `${id}: no capture event at the order_created endpoint`).toEqual(wanted);
      expect(await sandboxCharge(cartId)).toEqual([{ amount: currency.total, currency: journey.currency, capturedAmount: currency.total }]);
      expect(await dashboardRow(layout, id, cartId)).toEqual({ status: 'paid', amount: normalised(currency.shown.en) });
    }
    if (journey.after === 'disputed') await disputed(layout, cartId, card.approved, currency.total, expect);
    return notes.join('; ') || undefined;
  }

  /** The customer disputes the order; the merchant hears it, verified, accepts it and hears it lost; the dashboard shows it. */
  async function disputed(layout: MerchantLayout, cartId: string, paid: boolean, total: number, expect: ExpectStatic) {
    const api = merchantApi(stack, layout.merchant.apiKey);
    const opened = await api.post(`/v2/sandbox/carts/${cartId}/dispute`, {});
    if (!paid) {
      expect(opened.status, 'an unpaid order cannot be disputed').toBe(409);
      return;
    }
    expect(opened.status).toBe(202);
    const disputeAt = (status: string) =>
      expect
        .poll(() => eventsAt(layout.all, cartId, expect).find((e) => e.data.dispute?.status === status && !e.data.dispute.reminder), {
          timeout: 30_000,
          interval: 250,
        })
        .toBeDefined();
    await disputeAt('needs_response');
    const openedEvent = eventsAt(layout.all, cartId, expect).find((e) => e.event === 'order_disputed')!;
    expect(openedEvent.data.dispute).toMatchObject({ amount: total, status: 'needs_response' });
    expect((await api.post(`/v2/merchant/orders/${cartId}/dispute/accept`)).status).toBe(202);
    await disputeAt('lost');
    if (layout.filtered)
      expect(
        eventsAt(layout.filtered, cartId, expect).every((e) => e.event === 'order_created'),
        'no dispute event at the order_created endpoint',
      ).toBe(true);
    const page = await layout.dashboard.get(`/dashboard/orders/${cartId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-dispute-status="lost"');
  }

  /** The journey's cart created and declined, through the session's updates as the page sends them: what a retry journey retries. */
  async function declinedCart(layout: MerchantLayout, body: CreateCartRequest, expect: ExpectStatic): Promise<string> {
    const driver = cartSessionDriver(stack, layout.merchant.platformUuid);
    const cartId = await createCartId(stack.apiUrl, body);
    const session = { cartId, handle: driver.handleOf(cartId) };
    await driver.sendCode(session);
    await driver.verify(session, await driver.sentCode(session));
    expect((await driver.pay(session, SANDBOX_CARDS.declined)).status).toBe('failed');
    return cartId;
  }

  /**
   * The journey's cart created with recovery and abandoned at once: its session is replaced by one
   * whose timer is a second long (as cartSessionDriver's startSessionWithOtpPolicy does for OTP
   * timings), which records the abandonment as any session does. What a recovery journey recovers.
   */
  async function abandonedCart(layout: MerchantLayout, body: CreateCartRequest, amount: number, expect: ExpectStatic): Promise<string> {
    const driver = cartSessionDriver(stack, layout.merchant.platformUuid);
    const cartId = await createCartId(stack.apiUrl, {
      ...body,
      cartObject: { ...body.cartObject, cart: { ...body.cartObject.cart, recovery: { enabled: true } } },
    });
    await driver.handleOf(cartId).terminate('replaced by a session abandoned at once');
    await stack.db`update carts set status = 'pending' where cart_id = ${cartId}`;
    const handle = await startCartSession(stack.temporal.client, {
      taskQueue: stack.config.temporal.taskQueue,
      storeName: body.cartObject.store.name,
      workflowId: `${cartWorkflowId(cartId)}-abandoned`,
      input: {
        cartId,
        platformUuid: layout.merchant.platformUuid,
        storeName: body.cartObject.store.name,
        amount,
        currency: body.cartObject.cart.currency,
        expiresOn: new Date(Date.now() + 1_000).toISOString(),
        lifetimeMs: 1_000,
        paymentResolutionMs: stack.config.paymentResolutionMs,
      },
    });
    expect(await handle.result()).toEqual({ status: 'abandoned' });
    return cartId;
  }

  /** The abandoned cart's recovery link, as the merchant reads it in the Order API. */
  async function recoveryUrlOf(layout: MerchantLayout, cartId: string, expect: ExpectStatic): Promise<string> {
    const order = (await (await merchantApi(stack, layout.merchant.apiKey).get(`/orders/${cartId}`)).json()) as Order;
    expect(order.recoveryUrl, `the recoveryUrl of ${cartId}`).toMatch(/\/r\/[A-Za-z0-9_-]{22,}$/);
    return order.recoveryUrl!;
  }

  /** A payment link of the journey's cart, as the merchant creates it. */
  async function paymentLink(layout: MerchantLayout, body: CreateCartRequest, expect: ExpectStatic): Promise<{ id: string; url: string }> {
    const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${layout.merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cartObject: body.cartObject }),
    });
    const created = (await res.json()) as { id: string; url: string };
    expect(res.status, JSON.stringify(created)).toBe(201);
    return created;
  }

  /**
   * Another browser holding the cartId once the customer verified: it is shown the way to prove the
   * contact and nothing else (no card step, no saved card), and a Pay it posts anyway is refused.
   */
  async function secondBrowserRefused(cartId: string, journey: Journey, card: CardBehaviour, expect: ExpectStatic) {
    const { context, page, consoleErrors } = await openPage(browser, { width: 375 });
    try {
      expect((await page.goto(`${stack.checkoutUrl}/?token=${cartId}&lang=${journey.language}`))?.status()).toBe(200);
      await page.locator('[data-step="rebind"]').waitFor();
      const text = await page.locator('body').innerText();
      expect(text, 'a saved card shown to the second browser').not.toContain('••••\u00a0');
      expect(text).not.toContain(`•••• ${card.last4}`);
      expect(await page.locator('input[name="number"], input[name="savedCard"]').count()).toBe(0);
      // Its own form token and cookie, a Pay posted as the page would: refused, nothing charged.
      const fields: Record<string, string> = card.saved ? { savedCard: 'sc_guessed' } : { number: card.number, expiry: '12/30', cvv: '123' };
      const paid = await page.evaluate(async (fields) => {
        const csrf = document.querySelector<HTMLInputElement>('input[name="csrf"]')!.value;
        const token = document.querySelector<HTMLInputElement>('input[name="token"]')!.value;
        const res = await fetch('/card', { method: 'POST', body: new URLSearchParams({ token, csrf, ...fields }), redirect: 'manual' });
        return { status: res.status, body: await res.text() };
      }, fields);
      expect(paid.status, 'the second browser’s Pay').toBe(403);
      expect(paid.body).not.toContain(`•••• ${card.last4}`);
      expect(await sandboxCharge(cartId)).toEqual([]);
      expect(consoleErrors.filter((e) => !e.includes('403'))).toEqual([]);
    } finally {
      await context.close();
    }
  }

  /** The merchant's retry of a failed cart: the new session's cartId. */
  async function retried(layout: MerchantLayout, failedCartId: string, expect: ExpectStatic): Promise<string> {
    const res = await fetch(`${stack.apiUrl}/v2/merchant/carts/${failedCartId}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${layout.merchant.apiKey}` },
    });
    const answer = (await res.json()) as { cartId: string; url: string };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.url).toBe(`${stack.checkoutUrl}/?token=${answer.cartId}`);
    return answer.cartId;
  }

  /** Waits for the browser at the merchant's `path`; anywhere else after 30 s fails with where it stayed and what that page said. */
  async function landsOn(page: Page, path: '/success' | '/failure', id: string) {
    try {
      await page.waitForURL((url) => url.origin === site.baseUrl && url.pathname === path, { timeout: 30_000 });
    } catch {
      const heading = await page
        .locator('h1')
        .first()
        .textContent({ timeout: 1_000 })
        .catch(() => '(no heading)');
      throw new Error(`${id}: expected the customer at the merchant's ${path}; the page stayed at ${page.url()}, saying "${normalised(heading)}"`);
    }
  }

  /** The order once it has `status` and every event of it was delivered to every endpoint that wants it. */
  async function settled(layout: MerchantLayout, cartId: string, status: string, expect: ExpectStatic): Promise<Order> {
    const api = merchantApi(stack, layout.merchant.apiKey);
    let order: Order | undefined;
    await expect
      .poll(
        async () => {
          const res = await api.get(`/orders/${cartId}`);
          order = (await res.json()) as Order;
          return `${order.status}: ${order.webhooks.map((w) => `${w.event} ${w.status}`).join(', ')}`;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toMatch(new RegExp(`^${status}: (\\w+ delivered)(, \\w+ delivered)*$`));
    return order!;
  }

  /** The cart's events an endpoint acknowledged, in the order they arrived, each verified over its raw body with that endpoint's secret. */
  function eventsAt(endpoint: Endpoint, cartId: string, expect: ExpectStatic): WebhookEventBody[] {
    return [...endpoint.receiver.processed.values()].flatMap((request) => {
      const verified = verifyWebhook(request.rawBody, request.headers, endpoint.secret);
      expect(verified.valid, `a delivery to ${endpoint.receiver.url} that its secret does not verify`).toBe(true);
      return verified.valid && verified.event.data.cartId === cartId ? [verified.event] : [];
    });
  }

  const line = (event: WebhookEventBody): EventLine => [event.event, event.data.status];

  async function sandboxCharge(cartId: string) {
    const rows = await stack.db<{ amount: string | null; currency: string | null; captured_amount: string | null }[]>`
      select amount, currency, captured_amount from sandbox_charges where idempotency_key = ${cartId}`;
    return rows.map((r) => ({
      amount: r.amount === null ? null : Number(r.amount),
      currency: r.currency,
      capturedAmount: r.captured_amount === null ? null : Number(r.captured_amount),
    }));
  }

  /** The order's row in the merchant's dashboard, found by its `extra`: its status and amount cells as shown. */
  async function dashboardRow(layout: MerchantLayout, id: string, cartId: string): Promise<{ status: string; amount: string } | undefined> {
    const listed = await layout.dashboard.get(`/dashboard/orders?extraKey=journey&extraValue=${id}`);
    expect(listed.status).toBe(200);
    const row = [...listed.body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).find((r) => r.includes(`/dashboard/orders/${cartId}"`));
    if (!row) return undefined;
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => normalised(m[1]!.replace(/<[^>]*>/g, '')));
    // Order, Created, Created with, Status, Amount, …
    return { status: cells[3]!, amount: cells[4]! };
  }
});
