import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { cartWorkflowId, payUpdate } from '../../workflows/cart-session/messages.js';
import { cartSessionDriver, ledgerRow, recordedEvents, vaultCount } from '../support/cart-session-driver.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { startTestAcquirer, testAcquirerProcessor, type TestAcquirer } from '../support/http-processor.js';
import { planOf, reliabilitySettings, reportFigures, type SuiteFigures } from '../support/reliability.js';
import { useTestStack } from '../support/test-stack.js';
import { merchantApi } from '../support/merchant-api.js';
import { waitFor } from '../support/wait-for.js';

/** validCartRequest's total: what an approved payment captures. */
const CAPTURED = 4498;
const CARD_FORM = { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' };
const FINAL_STATUSES = ['paid', 'failed', 'cancelled', 'abandoned'];

/**
 * Customers and merchants doing things at the same time that only one of may win: whatever the
 * interleaving, one session, one terminal state, one final event, at most one charge.
 */
describe('races', () => {
  const { seed, trials } = reliabilitySettings('races');
  let acquirer: TestAcquirer;
  const processor = testAcquirerProcessor(() => acquirer.url);
  const stack = useTestStack({}, { paymentProcessor: processor });
  const EXPIRY_LIFETIME_SECONDS = 12;
  /** A manual authorization's hold on the expiring stack: short, so capture, void and refund can race its timer. */
  const HOLD_SECONDS = 6;
  const expiring = useTestStack(
    { SESSION_LIFETIME_SECONDS: String(EXPIRY_LIFETIME_SECONDS), AUTHORIZATION_HOLD_DAYS: String(HOLD_SECONDS / 86_400) },
    { paymentProcessor: processor },
  );
  const figures: Required<Pick<SuiteFigures, 'sessionsChecked' | 'sessionsLost' | 'serverErrors' | 'notes'>> & { races: Record<string, number> } = {
    sessionsChecked: 0,
    sessionsLost: 0,
    serverErrors: 0,
    notes: [],
    races: {},
  };

  beforeAll(async () => {
    acquirer = await startTestAcquirer();
  });
  afterAll(async () => {
    reportFigures({
      suite: 'races',
      title:
        'Races: concurrent Pay, Pay against expiry, cancel against Pay, concurrent idempotent creates, concurrent refunds, capture against void against the hold timer against a refund',
      seed,
      trials,
      faults: figures.races,
      sessionsChecked: figures.sessionsChecked,
      sessionsLost: figures.sessionsLost,
      maxChargesPerCart: acquirer.maxChargesPerCart(),
      serverErrors: figures.serverErrors,
      notes: figures.notes,
    });
    await acquirer?.close();
  });

  /** One terminal state in the ledger and the workflow, one final event, at most one charge, no card left. */
  async function expectOneEnding(on: typeof stack, cartId: string, allowed: string[]) {
    figures.sessionsChecked++;
    const { status } = await on.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).result();
    const finals = (await recordedEvents(on, cartId)).filter((e) => FINAL_STATUSES.includes(e.status));
    const record = acquirer.records.get(cartId);
    const charged = (record?.approvedCharges ?? 0) > 0 && !record?.voided;
    const consistent =
      allowed.includes(status) &&
      (await ledgerRow(on, cartId))?.status === status &&
      finals.length === 1 &&
      finals[0]!.status === status &&
      (record?.approvedCharges ?? 0) <= 1 &&
      charged === (status === 'paid') &&
      (await vaultCount(on, cartId)) === 0;
    if (!consistent) figures.sessionsLost++;
    expect({ status, finals: finals.map((e) => e.status), record, consistent }).toMatchObject({ consistent: true });
    return status;
  }

  const countStatus = (res: Response) => {
    if (res.status >= 500) figures.serverErrors++;
    return res;
  };

  it('charges once when Pay is submitted several times at once', async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
    for (const copies of planOf(fc.integer({ min: 2, max: 6 }), seed, trials)) {
      const session = await driver.createSession();
      const page = await visitCheckout(stack.checkoutUrl, session.cartId);
      await postCheckoutForm(stack.checkoutUrl, '/contact', session.cartId, page, { contact: 'customer@example.com' });
      await postCheckoutForm(stack.checkoutUrl, '/code', session.cartId, page, { code: stack.config.sandboxOtp });
      const answers = await Promise.all(
        Array.from({ length: copies }, () => postCheckoutForm(stack.checkoutUrl, '/card', session.cartId, page, CARD_FORM).then(countStatus)),
      );
      for (const res of answers) expect(res.status).toBeLessThan(500);
      await expectOneEnding(stack, session.cartId, ['paid']);
      figures.races['concurrent Pay submissions'] = (figures.races['concurrent Pay submissions'] ?? 0) + copies;
    }
  });

  it('ends a payment racing cancellation one way only', async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
    const endings = new Set<string>();
    for (const cancelFirstByMs of planOf(fc.integer({ min: -150, max: 150 }), seed, trials)) {
      const session = await driver.createSession();
      const page = await visitCheckout(stack.checkoutUrl, session.cartId);
      await postCheckoutForm(stack.checkoutUrl, '/contact', session.cartId, page, { contact: 'customer@example.com' });
      await postCheckoutForm(stack.checkoutUrl, '/code', session.cartId, page, { code: stack.config.sandboxOtp });
      const later = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
      await Promise.all([
        later(cancelFirstByMs).then(() => postCheckoutForm(stack.checkoutUrl, '/card', session.cartId, page, CARD_FORM).then(countStatus)),
        later(-cancelFirstByMs).then(() => postCheckoutForm(stack.checkoutUrl, '/cancel', session.cartId, page).then(countStatus)),
      ]);
      endings.add(await expectOneEnding(stack, session.cartId, ['paid', 'cancelled']));
      figures.races['cancel against Pay'] = (figures.races['cancel against Pay'] ?? 0) + 1;
    }
    console.log(`cancel against Pay ended as: ${[...endings].join(', ')}`);
  });

  it('ends a payment racing expiry one way only', { timeout: 300_000 }, async () => {
    const driver = cartSessionDriver(expiring, (await expiring.createMerchant()).platformUuid);
    const endings = new Set<string>();
    const race = async (offsetMs: number) => {
      const session = await driver.verifiedSession();
      const { expiresOn } = await driver.state(session);
      const card = await driver.vaultCard(session, SANDBOX_CARDS.approved);
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresOn) + offsetMs - Date.now())));
      // Refused once the session closed (it then abandons): either answer is fine, one ending is not negotiable.
      await session.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${session.cartId}` }).catch(() => undefined);
      endings.add(await expectOneEnding(expiring, session.cartId, ['paid', 'abandoned']));
      figures.races['Pay against expiry'] = (figures.races['Pay against expiry'] ?? 0) + 1;
    };
    // A few sessions side by side, each waiting for its own expiry; more would crowd a 12 s lifetime on two cores.
    const offsets = planOf(fc.integer({ min: -1_500, max: 500 }), seed, trials);
    for (let i = 0; i < offsets.length; i += 4) await Promise.all(offsets.slice(i, i + 4).map(race));
    console.log(`Pay against expiry ended as: ${[...endings].join(', ')}`);
  });

  it('creates one session for concurrent creates with one Idempotency-Key', async () => {
    const { platformUuid } = await stack.createMerchant();
    for (const copies of planOf(fc.integer({ min: 2, max: 8 }), seed, trials)) {
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: copies }, () => postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key }).then(countStatus)),
      );
      const cartIds = new Set<string>();
      for (const res of answers) {
        const body = (await res.json()) as { code: string; data?: { cartId: string } };
        // A copy that arrives while the first holds the key waits for it, or is told to retry: never a second cart.
        expect([200, 409, 503]).toContain(res.status);
        if (res.status === 200) cartIds.add(body.data!.cartId);
      }
      expect(cartIds.size).toBe(1);
      figures.sessionsChecked++;
      figures.races['concurrent idempotent creates'] = (figures.races['concurrent idempotent creates'] ?? 0) + copies;
    }
    // One ledger row per key, however many copies of each were sent.
    const rows = await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`;
    expect(rows[0]!.n).toBe(trials);
  });

  it('never refunds more than was captured, however many refunds race', { timeout: 300_000 }, async () => {
    const merchant = await stack.createMerchant();
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const api = merchantApi(stack, merchant.apiKey);
    let mostRefunded = 0;
    for (const amounts of planOf(fc.array(fc.integer({ min: 1, max: CAPTURED }), { minLength: 2, maxLength: 6 }), seed, trials)) {
      const session = await driver.verifiedSession();
      expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
      const answers = await Promise.all(amounts.map((amount) => api.refund(session.cartId, { amount }).then(countStatus)));
      // Granted (and run), or refused for want of room: nothing else.
      for (const res of answers) expect([201, 422]).toContain(res.status);
      await waitFor(
        async () => ((await stack.db`select 1 from refunds where cart_id = ${session.cartId} and status = 'pending'`).length === 0 ? true : undefined),
        { timeoutMs: 60_000, what: 'every refund settled' },
      );
      const [ledger] = await stack.db<{ refunded: number }[]>`select refunded_amount::int as refunded from carts where cart_id = ${session.cartId}`;
      const atAcquirer = acquirer.refundedOf(session.cartId);
      expect(atAcquirer).toBeLessThanOrEqual(CAPTURED);
      expect(ledger!.refunded).toBe(atAcquirer);
      mostRefunded = Math.max(mostRefunded, atAcquirer);
      figures.sessionsChecked++;
      figures.races['concurrent refunds'] = (figures.races['concurrent refunds'] ?? 0) + amounts.length;
    }
    figures.notes.push(`concurrent refunds: at most ${mostRefunded} refunded of an order of ${CAPTURED} (acquirer and ledger agree)`);
  });

  it('settles an authorization once: capture against void against the hold timer against a refund', { timeout: 300_000 }, async () => {
    const merchant = await expiring.createMerchant();
    const driver = cartSessionDriver(expiring, merchant.platformUuid);
    const api = merchantApi(expiring, merchant.apiKey);
    const endings = new Set<string>();
    const plan = fc.record({
      // Around the hold's end: before it, the merchant's requests race each other; after it, they race the timer.
      offsetMs: fc.integer({ min: -2_000, max: 500 }),
      captureAmount: fc.integer({ min: 1, max: CAPTURED }),
      refundAmount: fc.integer({ min: 1, max: CAPTURED }),
      order: fc.constantFrom('capture', 'void', 'refund'),
    });
    const race = async ({ offsetMs, captureAmount, refundAmount, order }: { offsetMs: number; captureAmount: number; refundAmount: number; order: string }) => {
      const session = await driver.verifiedSession({ captureMethod: 'manual' });
      const state = await driver.pay(session, SANDBOX_CARDS.approved);
      expect(state.status).toBe('authorized');
      const holdEndsAt = Date.parse(state.authorization!.holdExpiresAt);
      await new Promise((r) => setTimeout(r, Math.max(0, holdEndsAt + offsetMs - Date.now())));
      // The plan's first action goes a few milliseconds ahead of the other two, which go together.
      const ahead = (action: string) => new Promise((r) => setTimeout(r, action === order ? 0 : 5));
      const [captured, voided, refunded] = await Promise.all([
        ahead('capture').then(() => api.capture(session.cartId, { amount: captureAmount }).then(countStatus)),
        ahead('void').then(() => api.void(session.cartId).then(countStatus)),
        ahead('refund').then(() => api.refund(session.cartId, { amount: refundAmount }).then(countStatus)),
      ]);
      expect([200, 202, 409]).toContain(captured.status);
      expect([200, 202, 409]).toContain(voided.status);
      expect([201, 409, 422]).toContain(refunded.status);
      // Capture and void never both win.
      expect([captured, voided].filter((res) => res.status === 200 || res.status === 202).length).toBeLessThanOrEqual(1);

      figures.sessionsChecked++;
      const { status } = await session.handle.result();
      endings.add(status);
      await waitFor(
        async () => ((await expiring.db`select 1 from refunds where cart_id = ${session.cartId} and status = 'pending'`).length === 0 ? true : undefined),
        { timeoutMs: 60_000, what: 'every refund settled' },
      );
      const record = acquirer.records.get(session.cartId)!;
      const capturesAtAcquirer = [...record.captures.values()];
      const events = await recordedEvents(expiring, session.cartId);
      const endingEvents = events.filter((e) => (e.event === 'order_updated' && e.status === 'paid') || e.event === 'order_cancelled');
      const [ledger] = await expiring.db<{ status: string; captured: number | null; refunded: number }[]>`
        select status, captured_amount::int as captured, refunded_amount::int as refunded from carts where cart_id = ${session.cartId}`;
      const consistent =
        record.approvedCharges === 1 &&
        endingEvents.length === 1 &&
        (status === 'paid'
          ? capturesAtAcquirer.length === 1 && !record.voided && ledger!.captured === capturesAtAcquirer[0] && endingEvents[0]!.status === 'paid'
          : status === 'cancelled' && capturesAtAcquirer.length === 0 && record.voided && ledger!.captured === null && ledger!.status === 'cancelled') &&
        // Refunds only of what was captured, and the ledger agrees with the acquirer.
        acquirer.refundedOf(session.cartId) <= (capturesAtAcquirer[0] ?? 0) &&
        ledger!.refunded === acquirer.refundedOf(session.cartId);
      if (!consistent) figures.sessionsLost++;
      expect({ status, ledger, record, endingEvents, consistent }).toMatchObject({ consistent: true });
      figures.races['capture, void, hold timer and refund'] = (figures.races['capture, void, hold timer and refund'] ?? 0) + 3;
    };
    // Two authorizations side by side, each racing its own hold; more would crowd a 6 s hold on two cores.
    const plans = planOf(plan, seed, trials);
    for (let i = 0; i < plans.length; i += 2) await Promise.all(plans.slice(i, i + 2).map(race));
    figures.notes.push(`capture against void against the hold timer against a refund ended as: ${[...endings].join(', ')}`);
  });
});
