import { SANDBOX_CURRENCIES } from '../../core/checkout/processor-amounts.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Connection, WorkflowClient } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_CARDS, SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
import type { Keyring } from '../../core/crypto.js';
import { temporalDataConverter, decodePayload, ENCRYPTED_ENCODING, payloadFromJson, payloadToJson, type JsonPayload } from '../../core/temporal/codec.js';
import { refundOrder } from '../../core/orders/request-refund.js';
import { authorizationHold } from '../../workflows/cart-session/client.js';
import { refundWorkflow } from '../../workflows/refund/client.js';
import { refundWorkflowId } from '../../workflows/refund/messages.js';
import { reportFigures } from '../support/reliability.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';
import { validCartRequest } from '../support/fixtures.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { savedCardsOf } from '../../core/checkout/saved-cards.js';
import { purgeCardVault } from '../../workflows/card-vault-purge/workflow.js';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { createWebhookEndpoint } from '../../core/webhooks/endpoints.js';
import { cartSessionDriver, type Session } from '../support/cart-session-driver.js';
import { sandboxChargesIn } from '../../core/checkout/payment-processors/sandbox-charges.js';
import { advanceClockUpdate, expireUpdate, stateQuery, threeDSecureReturnUpdate, type ClockTarget } from '../../workflows/cart-session/messages.js';
import { waitFor } from '../support/wait-for.js';
import { RELEASE_1_3 } from '../../workflows/release-patches.js';

/**
 * Workflow code changes must keep replaying the histories of executions already running, or they
 * break mid-checkout. This replays fresh histories and the ones each release recorded, in
 * test/fixtures/histories/<version>/ (docs/decisions/workflow-versioning.md). A release records its
 * own once, from its code: `npm run record:replay-fixtures` (RECORD_REPLAY_FIXTURES=1) writes this
 * version's folder; the folders of earlier releases are kept while any of their executions may run.
 * A fixture is protobufjs's JSON form of the History message: `historyToJSON` from
 * @temporalio/common cannot be used here, as its protobufjs copy differs from @temporalio/proto's
 * in this install ("type must be a Type").
 */
const HISTORIES = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
const VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string }).version;
const RELEASE_HISTORIES = `${HISTORIES}${VERSION}/`;
const RECORDING = process.env.RECORD_REPLAY_FIXTURES === '1';
/** The histories each release records: one per path the fresh replays below take. */
const RECORDED = [
  'cart-session-paid',
  'cart-session-cancelled',
  'cart-session-declined',
  'cart-session-locked-out',
  'cart-session-unanswered',
  'cart-session-abandoned',
  'cart-session-expired',
  'cart-session-captured',
  'cart-session-voided',
  'webhook-delivery-retrying',
  'webhook-delivery-endpoints',
  'refund-succeeded',
  'refund-declined',
  'card-vault-purge',
  'cart-session-three-d-secure',
  'cart-session-three-d-secure-timeout',
  'cart-session-reminded',
  'cart-session-card-saved',
  'cart-session-saved-card',
  'cart-session-rebound',
  'cart-session-link',
  'cart-session-clock-expired',
  'cart-session-clock-hold',
  'cart-session-clock-reminded',
] as const;
/** Paths added since this release (each behind the next release's marker, CHANGELOG.md): replayed fresh, recorded by the next release. */
const SINCE_RELEASE: ReadonlyArray<(typeof RECORDED)[number]> = ['cart-session-clock-expired', 'cart-session-clock-hold', 'cart-session-clock-reminded'];
const { History } = temporal.api.history.v1;
type HistoryJson = { events: Array<{ activityTaskScheduledEventAttributes?: { activityType: { name: string } } }> };
const loadFixture = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as HistoryJson;
/** Every recorded history of every release, as [release/name, path]. */
const recordedHistories = () =>
  readdirSync(HISTORIES).flatMap((release) =>
    readdirSync(`${HISTORIES}${release}`)
      .filter((f) => f.endsWith('.history.json'))
      .map((f) => [`${release}/${f.replace('.history.json', '')}`, `${HISTORIES}${release}/${f}`] as const),
  );

/** A session a visit of a new payment link minted, as the customer's browser opens it. */
async function paymentLinkSession(
  stack: TestStack,
  merchant: { platformUuid: string; apiKey: string },
  driver: ReturnType<typeof cartSessionDriver>,
): Promise<Session> {
  const created = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ cartObject: validCartRequest(merchant.platformUuid).cartObject }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // This stack's page is not at CHECKOUT_BASE_URL, which the link's url names: the same route at the page's address.
  const visit = await fetch(`${stack.checkoutUrl}/l/${id}`, { redirect: 'manual' });
  expect(visit.status).toBe(303);
  const cartId = new URL(visit.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;
  return { cartId, handle: driver.handleOf(cartId) };
}

/**
 * The History's JSON with every encrypted payload decrypted: a fixture must replay under any run's
 * key (each run makes its own), and the codec lets clear payloads through.
 */
function clearPayloads(value: unknown, keyring: Keyring): unknown {
  if (Array.isArray(value)) return value.map((v) => clearPayloads(v, keyring));
  if (value === null || typeof value !== 'object') return value;
  const payload = value as JsonPayload;
  if (payload.metadata?.encoding === Buffer.from(ENCRYPTED_ENCODING).toString('base64')) return payloadToJson(decodePayload(keyring, payloadFromJson(payload)));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clearPayloads(v, keyring)]));
}

describe('every workflow type replays its histories deterministically', () => {
  // The 3-D Secure timeout path waits out the challenge's bound: a few seconds, still ample for the completed path's return.
  const stack = useTestStack({ PAYMENT_RESOLUTION_SECONDS: '2', THREE_DS_CHALLENGE_SECONDS: '5' });
  let driver: ReturnType<typeof cartSessionDriver>;
  let paidOwner: string;
  let paidMerchant: CreatedMerchant;
  /** Fresh histories by RECORDED name, written to this release's folder when recording. */
  const fresh = new Map<string, temporal.api.history.v1.IHistory>();
  // Decoded with the codec every worker runs: fresh histories hold encrypted payloads, the recorded one clear ones.
  const replay = (history: unknown, workflowId: string) =>
    Worker.runReplayHistory({ workflowBundle: inject('workflowBundle'), dataConverter: temporalDataConverter(stack.config.keyring) }, history, workflowId);
  beforeAll(async () => {
    paidMerchant = await stack.createMerchant();
    paidOwner = paidMerchant.platformUuid;
    driver = cartSessionDriver(stack, paidOwner);
  });

  // A dozen sessions driven to their ends: 20 s alone, over the default 60 s with two test runs side by side.
  it(
    'replays paid, cancelled, locked-out, declined, unanswered, abandoned, merchant-expired, captured and voided sessions, their webhook deliveries, refunds and a vault purge',
    { timeout: 180_000 },
    async () => {
      const paid = await driver.verifiedSession();
      await driver.pay(paid, SANDBOX_CARDS.approved);
      const cancelled = await driver.verifiedSession();
      await driver.cancel(cancelled);
      const declined = await driver.verifiedSession();
      await driver.pay(declined, SANDBOX_CARDS.declined);
      const locked = await driver.createSession();
      await driver.sendCode(locked);
      for (let i = 0; i < 5; i++) await driver.verify(locked, (await driver.sentCode(locked)) === '999999' ? '999998' : '999999');

      // An unanswered charge: lookups until the bound, then a void.
      const unanswered = await driver.verifiedSession();
      await driver.pay(unanswered, SANDBOX_CARDS.processorError);

      // A session nobody finishes after its code was sent: the same driver with a ten-second session
      // lifetime, ample for the send even on a loaded machine (a send after it would be refused).
      const shortLived = cartSessionDriver({ ...stack, config: { ...stack.config, sessionLifetimeMs: 10_000 } }, paidOwner);
      const abandoned = await shortLived.startSessionWithOtpPolicy({});
      await shortLived.sendCode(abandoned);
      // Abandoned by a customer who verified a contact and asked for a reminder (release-1.2): reminded a second after.
      const reminded = await shortLived.startSessionWithOtpPolicy({}, { recovery: { enabled: true }, recoveryReminderMs: 1_000 });
      await shortLived.sendCode(reminded, 'jane.doe@example.com', { remind: true });
      await shortLived.verify(reminded, await shortLived.sentCode(reminded));

      // The merchant ends a session the customer had started (release-1.1).
      const expired = await driver.createSession();
      await driver.sendCode(expired);
      await expired.handle.executeUpdate(expireUpdate, { updateId: `expire-${expired.cartId}` });

      // Manual capture (release-1.1): one authorization captured in part, one voided, as the merchant API does.
      const hold = authorizationHold(stack.temporal.client, 30_000);
      const captured = await driver.verifiedSession({ captureMethod: 'manual' });
      expect((await driver.pay(captured, SANDBOX_CARDS.approved)).status).toBe('authorized');
      expect(await hold.capture(captured.cartId, 3000)).toEqual({ outcome: 'settled' });
      const voided = await driver.verifiedSession({ captureMethod: 'manual' });
      expect((await driver.pay(voided, SANDBOX_CARDS.approved)).status).toBe('authorized');
      expect(await hold.void(voided.cartId)).toEqual({ outcome: 'settled' });

      // 3-D Secure (patch release-1.1): a challenge the customer completes, and one nobody answers (voided at the bound).
      const challenged = await driver.verifiedSession();
      const challenge = await driver.startPayment(challenged, SANDBOX_CARDS.challenge);
      await sandboxChargesIn(stack.db).answerAuthentication(challenge.chargeId, 'authenticated');
      expect(await challenged.handle.executeUpdate(threeDSecureReturnUpdate, { updateId: `three-d-secure-return-${challenged.cartId}` })).toMatchObject({
        status: 'paid',
        payment: { threeDSecure: { result: 'authenticated' } },
      });
      const unreturned = await driver.verifiedSession();
      await driver.startPayment(unreturned, SANDBOX_CARDS.challenge);

      // Saved cards (release-1.2): a card saved with the consent, then paid with by its id in another session.
      const cardKey = savedCardContactKey(stack.config.keyring, 'saver@example.com');
      const cardSaved = await driver.createSession();
      await driver.sendCode(cardSaved, 'saver@example.com', { cardKey });
      await driver.verify(cardSaved, await driver.sentCode(cardSaved));
      expect(await driver.payWith(cardSaved, { ...(await driver.vaultCard(cardSaved, SANDBOX_CARDS.approved)), save: true })).toMatchObject({ status: 'paid' });
      const [saved] = await savedCardsOf(stack.db, cardKey, 'sandbox');
      const savedCard = await driver.createSession();
      await driver.sendCode(savedCard, 'saver@example.com', { cardKey });
      await driver.verify(savedCard, await driver.sentCode(savedCard));
      expect(await driver.payWith(savedCard, { savedCardId: saved!.id, brand: saved!.brand, last4: saved!.last4 })).toMatchObject({
        status: 'paid',
        payment: { savedCard: true },
      });

      // Another browser (release-1.2): a fresh code to the verified contact, one wrong try refused, the right one, then Pay.
      const rebound = await driver.createSession();
      await driver.sendCode(rebound);
      await driver.verify(rebound, await driver.sentCode(rebound));
      await driver.resendCode(rebound);
      const reboundCode = await driver.sentCode(rebound);
      await expect(driver.verify(rebound, reboundCode === '999999' ? '999998' : '999999')).rejects.toThrow();
      expect(await driver.verify(rebound, reboundCode)).toMatchObject({ step: 'card' });
      await driver.pay(rebound, SANDBOX_CARDS.approved);

      // A payment link's session (its lineage is the ledger's; the session is any session's).
      const link = await paymentLinkSession(stack, paidMerchant, driver);
      await driver.sendCode(link);
      await driver.verify(link, await driver.sentCode(link));
      await driver.pay(link, SANDBOX_CARDS.approved);

      // The sandbox test clock (release-1.3): a session's expiry, a hold's end and a reminder's delay, each fired now.
      const advance = (s: Session, to: ClockTarget) => s.handle.executeUpdate(advanceClockUpdate, { args: [{ to }], updateId: `advance-${s.cartId}-${to}` });
      const clockExpired = await driver.createSession();
      expect(await advance(clockExpired, 'expired')).toMatchObject({ status: 'abandoned' });
      const clockHold = await driver.verifiedSession({ captureMethod: 'manual' });
      expect((await driver.pay(clockHold, SANDBOX_CARDS.approved)).status).toBe('authorized');
      expect(await advance(clockHold, 'authorization_expired')).toMatchObject({ status: 'cancelled', failureCode: 'authorization_expired' });
      const clockReminded = await driver.startSessionWithOtpPolicy({}, { recovery: { enabled: true }, recoveryReminderMs: 3_600_000 });
      await driver.sendCode(clockReminded, 'jane.doe@example.com', { remind: true });
      await driver.verify(clockReminded, await driver.sentCode(clockReminded));
      await advance(clockReminded, 'expired');
      // Accepted once the abandoned session waits for the reminder's delay.
      await waitFor(() => advance(clockReminded, 'reminder_due'), { what: `the reminder of ${clockReminded.cartId} waiting` });

      const sessions = {
        'clock-expired': clockExpired,
        'clock-hold': clockHold,
        'clock-reminded': clockReminded,
        paid,
        cancelled,
        declined,
        'locked-out': locked,
        unanswered,
        abandoned,
        expired,
        captured,
        voided,
        'three-d-secure': challenged,
        'three-d-secure-timeout': unreturned,
        reminded,
        'card-saved': cardSaved,
        'saved-card': savedCard,
        rebound,
        link,
      } satisfies Record<string, Session>;
      for (const [path, s] of Object.entries(sessions)) {
        await s.handle.result();
        const history = await s.handle.fetchHistory();
        await replay(history, s.handle.workflowId);
        fresh.set(`cart-session-${path}`, history);
      }
      expect(await abandoned.handle.result()).toEqual({ status: 'abandoned' });
      // A new session records its own release's marker alone, which implies the earlier ones (workflows/cart-session/release.ts).
      const patchMarkers = fresh
        .get('cart-session-abandoned')!
        .events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
        .map((e) => JSON.parse(Buffer.from(e.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]!.data!).toString()) as { id: string });
      expect(patchMarkers.map((m) => m.id)).toEqual([RELEASE_1_3]);
      expect(await reminded.handle.result()).toEqual({ status: 'abandoned' });
      const remindedActivities = (await reminded.handle.fetchHistory()).events!.flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      expect(remindedActivities).toEqual(['sendRecoveryReminder']);
      const clockActivities = (await clockReminded.handle.fetchHistory()).events!.flatMap(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
      );
      expect(clockActivities).toContain('sendRecoveryReminder');
      expect([await captured.handle.result(), await voided.handle.result()]).toEqual([{ status: 'paid' }, { status: 'cancelled' }]);
      expect(await unreturned.handle.query(stateQuery)).toMatchObject({ status: 'failed', failureCode: 'authentication_timeout' });

      // The other workflow types, on the same paths: each cart's webhook delivery (still idling, so a
      // partial history, as a worker restart would replay it) and a run of the card vault purge.
      for (const s of [paid, cancelled, declined, locked, unanswered] as Session[]) {
        const deliveries = stack.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(s.cartId));
        // Its endpoint refuses connections (the test merchant's), so the delivery is mid-retry: a partial history.
        const history = await waitFor(
          async () => {
            const fetched = await deliveries.fetchHistory().catch(() => undefined);
            return fetched?.events?.some((e) => e.activityTaskScheduledEventAttributes) ? fetched : undefined;
          },
          { what: `a delivery scheduled for ${s.cartId}` },
        );
        await replay(history, deliveries.workflowId);
        if (s === paid) fresh.set('webhook-delivery-retrying', history);
      }
      // A merchant with two endpoints, both refusing connections: one line per endpoint, each mid-retry
      // (the path behind patched('release-1.1')).
      const twoEndpoints = await stack.createMerchant();
      await createWebhookEndpoint(
        stack.db,
        stack.config.keyring,
        { platformUuid: twoEndpoints.platformUuid, environment: stack.config.environment },
        {
          url: 'http://localhost:9/second',
          enabledEvents: ['*'],
        },
        stack.config.webhooks,
      );
      const twoDriver = cartSessionDriver(stack, twoEndpoints.platformUuid);
      const cancelledTwice = await twoDriver.verifiedSession();
      await twoDriver.cancel(cancelledTwice);
      const twoLines = stack.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(cancelledTwice.cartId));
      const twoLinesHistory = await waitFor(
        async () => {
          const fetched = await twoLines.fetchHistory().catch(() => undefined);
          return (fetched?.events?.filter((e) => e.activityTaskScheduledEventAttributes).length ?? 0) >= 2 ? fetched : undefined;
        },
        { what: `deliveries to both endpoints scheduled for ${cancelledTwice.cartId}` },
      );
      await replay(twoLinesHistory, twoLines.workflowId);
      fresh.set('webhook-delivery-endpoints', twoLinesHistory);

      // Refunds of the paid session: one the processor makes, one it declines (the sandbox's failing amount).
      const owner = { platformUuid: paidOwner, environment: stack.config.environment };
      const refunds = {
        db: stack.db,
        temporal: stack.temporal,
        refundWorkflow: refundWorkflow(stack.temporal.client, stack.config),
        currencies: SANDBOX_CURRENCIES,
      };
      const refunded = await refundOrder(refunds, { ...owner, cartId: paid.cartId, amount: 1000, reason: 'Damaged in transit' });
      const declinedRefund = await refundOrder(refunds, { ...owner, cartId: paid.cartId, amount: SANDBOX_REFUND_DECLINED_AMOUNT });
      const refundHandles = [refunded, declinedRefund].map((r) => stack.temporal.client.workflow.getHandle(refundWorkflowId(r.id)));
      expect(await Promise.all(refundHandles.map((h) => h.result()))).toEqual([{ status: 'succeeded' }, { status: 'failed', failureCode: 'refund_declined' }]);
      for (const [i, handle] of refundHandles.entries()) {
        const history = await handle.fetchHistory();
        await replay(history, handle.workflowId);
        fresh.set(i === 0 ? 'refund-succeeded' : 'refund-declined', history);
      }

      const purge = await stack.temporal.client.workflow.start(purgeCardVault, {
        workflowId: `purge-replay-${paid.cartId}`,
        taskQueue: stack.config.temporal.taskQueue,
        // Nothing is that old: the run must not touch the cards of other files' sessions.
        args: [{ olderThanMs: 100 * 365 * 24 * 3600_000 }],
      });
      expect(await purge.result()).toEqual({ purged: 0 });
      const purgeHistory = await purge.fetchHistory();
      await replay(purgeHistory, purge.workflowId);
      fresh.set('card-vault-purge', purgeHistory);

      expect([...fresh.keys()].sort()).toEqual([...RECORDED].sort());
      if (RECORDING) {
        mkdirSync(RELEASE_HISTORIES, { recursive: true });
        for (const [name, history] of fresh) {
          const json = clearPayloads(History.fromObject(history).toJSON(), stack.config.keyring);
          writeFileSync(`${RELEASE_HISTORIES}${name}.history.json`, `${JSON.stringify(json, null, 1)}\n`);
        }
      }
    },
  );

  it(`holds this release's (${VERSION}) recorded histories, one per path`, () => {
    const names = readdirSync(RELEASE_HISTORIES).map((f) => f.replace('.history.json', ''));
    expect(names.sort()).toEqual(RECORDED.filter((name) => RECORDING || !SINCE_RELEASE.includes(name)).sort());
    const activities = loadFixture(`${RELEASE_HISTORIES}refund-succeeded.history.json`).events.flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType.name ?? [],
    );
    expect(activities).toEqual(['confirmRefundReservation', 'refundCharge', 'settleRefund', 'recordCartEvent']);
  });

  it('replays the recorded histories of every release', async () => {
    const recorded = recordedHistories();
    expect(recorded.length).toBeGreaterThanOrEqual(RECORDED.length - SINCE_RELEASE.length);
    for (const [name, path] of recorded) await replay(History.fromObject(loadFixture(path)), `recorded-${name}`);
  });

  it('notices when the code no longer matches the history', async () => {
    const history = loadFixture(`${RELEASE_HISTORIES}cart-session-paid.history.json`);
    const scheduled = history.events.find((e) => e.activityTaskScheduledEventAttributes)!;
    scheduled.activityTaskScheduledEventAttributes!.activityType.name = 'somethingElse';
    await expect(replay(History.fromObject(history), 'cart-tampered')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});

/**
 * The rule the replays above enforce, shown on workflow code rather than on a tampered history: a
 * history recorded by one version of a workflow, replayed against a bundle whose code changed without
 * patched(), fails; the same change behind patched() replays.
 */
describe('a non-deterministic workflow change fails the replay', () => {
  const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/replay-workflows/${name}.ts`, import.meta.url));
  const bundle = (name: string) =>
    bundleWorkflowCode({ workflowsPath: fixture(name), logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } });

  it('rejects an unpatched change and accepts the patched one', { timeout: 120_000 }, async () => {
    const [original, unpatched, patchedBundle] = await Promise.all([bundle('original'), bundle('changed-unpatched'), bundle('changed-patched')]);
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const taskQueue = `replay-fixture-${randomUUID()}`;
    const worker = await Worker.create({ connection, taskQueue, workflowBundle: original });
    const temporalClient = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const workflows = new WorkflowClient({ connection: temporalClient });
      const history = await worker.runUntil(async () => {
        const handle = await workflows.start('replayFixture', { taskQueue, workflowId: `replay-fixture-${randomUUID()}` });
        await handle.result();
        return handle.fetchHistory();
      });
      await Worker.runReplayHistory({ workflowBundle: original }, history);
      await expect(Worker.runReplayHistory({ workflowBundle: unpatched }, history)).rejects.toBeInstanceOf(DeterminismViolationError);
      await Worker.runReplayHistory({ workflowBundle: patchedBundle }, history);
      reportFigures({
        suite: 'workflow-replay',
        title: 'Replay of recorded histories against a changed workflow',
        notes: [
          'a history recorded by the original code: replays on it, fails on the unpatched change (DeterminismViolationError), replays on the patched change',
        ],
      });
    } finally {
      await temporalClient.close();
      await connection.close();
    }
  });
});
