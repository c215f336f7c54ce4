import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readOutboxReminders } from '../../core/checkout/otp/outbox.js';
import { cartSessionDriver, ledgerRow, type DrivenStack, type Session } from '../support/cart-session-driver.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';

const LIFETIME_SECONDS = 10;
/** Long enough to kill the worker and start another inside it. */
const REMINDER_DELAY_SECONDS = 15;

/**
 * The worker process SIGKILLed between a session's abandonment and its reminder, and another started:
 * the reminder's timer is Temporal's, so the new worker sends it, and sends it once (the sandbox outbox
 * is written in the transaction that claims it: activities/cart-session/reminder.ts).
 */
describe('the abandoned-cart reminder when the worker dies while it waits', () => {
  const database = useOwnDatabase('reminder_worker_loss');
  let stack: ProcessStack;
  let driven: DrivenStack;
  let worker: RoleProcess;
  let merchant: { platformUuid: string; apiKey: string };
  let driver: ReturnType<typeof cartSessionDriver>;

  beforeAll(async () => {
    stack = createProcessStack({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      env: {
        TEST_WORKFLOW_BUNDLE: writeWorkflowBundle(),
        SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS),
        RECOVERY_REMINDER_DELAY_SECONDS: String(REMINDER_DELAY_SECONDS),
      },
    });
    const [api] = await Promise.all([stack.start('api', 'api'), (async () => (worker = await stack.start('worker', 'worker-1', { entry: TEST_WORKER })))()]);
    driven = { ...stack, apiUrl: api.url };
    merchant = await stack.createMerchant();
    driver = cartSessionDriver(driven, merchant.platformUuid);
  }, 180_000);
  afterAll(() => stack?.stop());

  it('sends exactly one reminder from the worker started after the one that held the session died', { timeout: 150_000 }, async () => {
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.cart.recovery = { enabled: true };
    const res = await postCart(driven.apiUrl, request, { authorization: `Bearer ${merchant.apiKey}` });
    expect(res.status).toBe(200);
    const cartId = ((await res.json()) as { data: { cartId: string } }).data.cartId;
    const session: Session = { cartId, handle: driver.handleOf(cartId) };
    await driver.sendCode(session, 'jane.doe@example.com', { remind: true });
    expect((await driver.verify(session, await driver.sentCode(session))).step).toBe('card');

    await waitFor(async () => (await ledgerRow(stack, cartId))?.status === 'abandoned' || undefined, { timeoutMs: 60_000, what: 'the abandonment' });
    const abandonedAt = Date.now();
    await worker.stop('SIGKILL');
    expect(await readOutboxReminders(stack.db, stack.config.keyring, cartId), 'nothing before the delay').toEqual([]);
    worker = await stack.start('worker', 'worker-2', { entry: TEST_WORKER });
    expect(Date.now() - abandonedAt, 'the new worker runs before the reminder is due').toBeLessThan(REMINDER_DELAY_SECONDS * 1000);

    expect(await session.handle.result()).toEqual({ status: 'abandoned' });
    const reminders = await readOutboxReminders(stack.db, stack.config.keyring, cartId);
    expect(reminders).toHaveLength(1);
    expect(reminders[0]).toMatchObject({ channel: 'email', address: 'jane.doe@example.com' });
    const [row] = await stack.db<{ reminder_sent_at: Date | null }[]>`select reminder_sent_at from carts where cart_id = ${cartId}`;
    expect(row!.reminder_sent_at!.getTime() - abandonedAt).toBeGreaterThanOrEqual(REMINDER_DELAY_SECONDS * 1000 - 2_000);
  });
});
