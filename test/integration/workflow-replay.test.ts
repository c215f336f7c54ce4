import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { temporal } from '@temporalio/proto';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Connection, WorkflowClient } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_CARDS, SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processor.js';
import type { Keyring } from '../../core/crypto.js';
import { temporalDataConverter, decodePayload, ENCRYPTED_ENCODING, payloadFromJson, payloadToJson, type JsonPayload } from '../../core/temporal-codec.js';
import { refundOrder } from '../../workflows/refund/client.js';
import { refundWorkflowId } from '../../workflows/refund/messages.js';
import { reportFigures } from '../support/reliability.js';
import { useTestStack } from '../support/test-stack.js';
import { purgeCardVault } from '../../workflows/card-vault-purge/workflow.js';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { cartSessionDriver, type Session } from '../support/cart-session-driver.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Workflow code changes must keep replaying the histories of sessions already running, or those
 * sessions break mid-checkout. This replays fresh histories and one recorded with an earlier version
 * (regenerate deliberately with RECORD_REPLAY_FIXTURE=1, and only with a versioning plan).
 * The fixture is protobufjs's JSON form of the History message: `historyToJSON` from
 * @temporalio/common cannot be used here, as its protobufjs copy differs from @temporalio/proto's
 * in this install ("type must be a Type").
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/cart-session-paid.history.json', import.meta.url));
const REFUND_FIXTURE = fileURLToPath(new URL('../fixtures/refund-succeeded.history.json', import.meta.url));
const { History } = temporal.api.history.v1;
const loadFixture = (path = FIXTURE) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

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
  const stack = useTestStack({ PAYMENT_RESOLUTION_SECONDS: '2' });
  let driver: ReturnType<typeof cartSessionDriver>;
  let paidOwner: string;
  // Decoded with the codec every worker runs: fresh histories hold encrypted payloads, the recorded one clear ones.
  const replay = (history: unknown, workflowId: string) =>
    Worker.runReplayHistory({ workflowBundle: inject('workflowBundle'), dataConverter: temporalDataConverter(stack.config.keyring) }, history, workflowId);
  beforeAll(async () => {
    paidOwner = (await stack.createMerchant()).platformUuid;
    driver = cartSessionDriver(stack, paidOwner);
  });

  it('replays paid, cancelled, locked-out, declined and unanswered sessions, their webhook deliveries, refunds and a vault purge', async () => {
    const paid = await driver.verifiedSession();
    await driver.pay(paid, SANDBOX_CARDS.approved);
    const cancelled = await driver.verifiedSession();
    await driver.cancel(cancelled);
    const declined = await driver.verifiedSession();
    await driver.pay(declined, SANDBOX_CARDS.declined);
    const locked = await driver.createSession();
    await driver.sendCode(locked);
    for (let i = 0; i < 5; i++) await driver.verify(locked, (await driver.sentCode(locked)) === '999999' ? '999998' : '999999');

    // An unanswered charge: lookups until the bound, then a void (the payment-certainty-v1 path).
    const unanswered = await driver.verifiedSession();
    await driver.pay(unanswered, SANDBOX_CARDS.processorError);

    for (const s of [paid, cancelled, declined, locked, unanswered] as Session[]) {
      await s.handle.result();
      await replay(await s.handle.fetchHistory(), s.handle.workflowId);
    }

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
    }
    // Refunds of the paid session: one the processor makes, one it declines (the sandbox's failing amount).
    const owner = { platformUuid: paidOwner, environment: stack.config.environment };
    const refunded = await refundOrder(stack, { ...owner, cartId: paid.cartId, amount: 1000, reason: 'Damaged in transit' });
    const declinedRefund = await refundOrder(stack, { ...owner, cartId: paid.cartId, amount: SANDBOX_REFUND_DECLINED_AMOUNT });
    const refundHandles = [refunded, declinedRefund].map((r) => stack.temporal.client.workflow.getHandle(refundWorkflowId(r.id)));
    expect(await Promise.all(refundHandles.map((h) => h.result()))).toEqual([{ status: 'succeeded' }, { status: 'failed', failureCode: 'refund_declined' }]);
    for (const handle of refundHandles) await replay(await handle.fetchHistory(), handle.workflowId);

    const purge = await stack.temporal.client.workflow.start(purgeCardVault, {
      workflowId: `purge-replay-${paid.cartId}`,
      taskQueue: stack.config.temporal.taskQueue,
      // Nothing is that old: the run must not touch the cards of other files' sessions.
      args: [{ olderThanMs: 100 * 365 * 24 * 3600_000 }],
    });
    expect(await purge.result()).toEqual({ purged: 0 });
    await replay(await purge.fetchHistory(), purge.workflowId);

    if (process.env.RECORD_REPLAY_FIXTURE === '1')
      writeFileSync(FIXTURE, `${JSON.stringify(History.fromObject(await paid.handle.fetchHistory()).toJSON(), null, 1)}\n`);
    if (process.env.RECORD_REPLAY_FIXTURE === 'refund') {
      const history = History.fromObject(await refundHandles[0]!.fetchHistory()).toJSON();
      writeFileSync(REFUND_FIXTURE, `${JSON.stringify(clearPayloads(history, stack.config.keyring), null, 1)}\n`);
    }
  });

  it('replays the recorded history of a refund that succeeded', async () => {
    expect(existsSync(REFUND_FIXTURE)).toBe(true);
    const history = loadFixture(REFUND_FIXTURE);
    const activities = (history as { events: Array<{ activityTaskScheduledEventAttributes?: { activityType: { name: string } } }> }).events.flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType.name ?? [],
    );
    expect(activities).toEqual(['confirmRefundReservation', 'refundCharge', 'settleRefund', 'recordCartEvent']);
    await replay(History.fromObject(history), 'refund-recorded');
  });

  it('replays the recorded history of a paid session', async () => {
    expect(existsSync(FIXTURE)).toBe(true);
    await replay(History.fromObject(loadFixture()), 'cart-recorded');
  });

  it('notices when the code no longer matches the history', async () => {
    const history = loadFixture() as { events: Array<{ activityTaskScheduledEventAttributes?: { activityType: { name: string } } }> };
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
