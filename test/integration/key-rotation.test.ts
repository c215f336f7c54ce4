import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeCard } from '../../core/checkout/card-vault.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { createOutboxOtpSender, readLatestOutboxCode } from '../../core/checkout/otp/outbox.js';
import { createOutboxDashboardMailer } from '../../core/people/mail/outbox.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { cartEvents } from '../support/cart-events.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useOwnDatabase } from '../support/own-database.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url);

/**
 * Rotating the data key under a live stack, the way an operator does it: k1 alone; then k1,k2 (k2
 * seals, k1 still opens); `npm run reseal`; then k2 alone. The test has a database of its own, since
 * reseal touches every row and the other test files seal with the run's key.
 */
describe('data key rotation under a live stack', () => {
  const [k1, k2] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
  const keys = { k1: `k1:${k1}`, k1k2: `k1:${k1},k2:${k2}`, k2: `k2:${k2}` };
  const database = useOwnDatabase('key_rotation');
  const databaseUrl = database.url;
  const db = database.db;
  let receiver: WebhookReceiver;
  const stacks: TestStack[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const stack of stacks.splice(0)) await stack.stop();
    await receiver?.close();
  });

  // One task queue for every stack: a session started before the rotation is carried on by the workers after it.
  const taskQueue = `key-rotation-${randomUUID()}`;
  const stackWith = async (DATA_ENCRYPTION_KEYS: string) => {
    const stack = await startTestStack({ DATA_ENCRYPTION_KEYS, DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue });
    stacks.push(stack);
    return stack;
  };
  const stop = async (stack: TestStack) => {
    stacks.splice(stacks.indexOf(stack), 1);
    await stack.stop();
  };
  const sealedKeyIds = async (stack: TestStack) => {
    const open = (rows: Array<{ sealed: Buffer }>) => rows.map((r) => stack.config.keyring.sealedWith(r.sealed) ?? 'untagged');
    return {
      webhookSecrets: open(await db()<{ sealed: Buffer }[]>`select secret_encrypted as sealed from webhook_secrets`),
      cardVault: open(await db()<{ sealed: Buffer }[]>`select sealed from card_vault`),
      otpOutbox: open(await db()<{ sealed: Buffer }[]>`select code_sealed as sealed from otp_outbox union all select recipient_sealed from otp_outbox`),
      dashboardMail: open(
        await db()<
          { sealed: Buffer }[]
        >`select secret_sealed as sealed from dashboard_mail_outbox union all select recipient_sealed from dashboard_mail_outbox`,
      ),
      orderCustomers: open(await db()<{ sealed: Buffer }[]>`select customer_sealed as sealed from carts where customer_sealed is not null order by created_at`),
      eventCustomers: open(
        (
          await db()<{ sealed: string }[]>`
            select payload->'data'->'customer'->>'sealed' as sealed from webhook_events where payload->'data'->'customer' ? 'sealed' order by created_at`
        ).map((r) => ({ sealed: Buffer.from(r.sealed, 'base64') })),
      ),
    };
  };
  /** A cart created through the API, then one event recorded for it: delivered, signed, by this stack's worker. */
  const deliverOne = async (stack: TestStack, platformUuid: string) => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    await stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).terminate('only its webhook matters here');
    const events = cartEvents(stack);
    const { eventId } = await events.recordCartEvent({ cartId, event: 'order_cancelled', status: 'cancelled' });
    return waitFor(() => receiver.requests.find((r) => r.headers['webhook-id'] === eventId), { what: `delivery of ${eventId}` });
  };
  const reseal = async (DATA_ENCRYPTION_KEYS: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CHECKOUT_ENV: 'sandbox', DATABASE_URL: databaseUrl, DATA_ENCRYPTION_KEYS };
    delete env.DATA_ENCRYPTION_KEY;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/reseal.ts'], { cwd: ROOT, env });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  it('k1 → k1,k2 → reseal → k2: every stored secret still opens, and webhooks stay signed with the merchant secret', async () => {
    // k1 alone: a merchant, a card in the vault, a code in the outbox, all sealed with k1.
    const first = await stackWith(keys.k1);
    const merchant = await first.createMerchant({ webhookUrl: receiver.url });
    const cartId = await createCartId(first.apiUrl, validCartRequest(merchant.platformUuid));
    await first.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).terminate('only its rows matter here');
    await storeCard(first.db, first.config.keyring, cartId, { pan: '4111111111111111', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2099, cvv: '123' });
    await createOutboxOtpSender({ environment: 'sandbox', db: first.db, keyring: first.config.keyring, logger: first.logger }).send({
      kind: 'code',
      cartId,
      channel: 'email',
      address: 'ada@example.com',
      addressHint: 'a…@example.com',
      code: '424242',
      merchantName: 'Test Store',
      codeLifetimeMs: 300_000,
    });
    // A dashboard sign-in code in sandbox's mail outbox: its recipient and code sealed with k1.
    await createOutboxDashboardMailer({ environment: 'sandbox', db: first.db, keyring: first.config.keyring, logger: first.logger }).send({
      kind: 'sign_in_code',
      to: 'grace@example.com',
      code: '271828',
      lifetimeMs: 600_000,
    });
    // A customer who paid under k1: their contact is sealed with it in the ledger and in order_created.
    const firstDriver = cartSessionDriver(first, merchant.platformUuid);
    expect(await firstDriver.pay(await firstDriver.verifiedSession(), SANDBOX_CARDS.approved)).toMatchObject({ status: 'paid' });
    expect(await sealedKeyIds(first)).toEqual({
      webhookSecrets: ['k1'],
      cardVault: ['k1'],
      // The outbox holds that customer's code too.
      otpOutbox: ['k1', 'k1', 'k1', 'k1'],
      dashboardMail: ['k1', 'k1'],
      orderCustomers: ['k1'],
      eventCustomers: ['k1'],
    });
    // A customer mid-checkout across the rotation: verified under k1, pays under k1,k2.
    const live = await cartSessionDriver(first, merchant.platformUuid).verifiedSession();
    await stop(first);

    // k1,k2: the old secret opens and signs; what is sealed now is sealed with k2.
    const second = await stackWith(keys.k1k2);
    expect(second.config.keyring.sealingKeyId).toBe('k2');
    const delivered = await deliverOne(second, merchant.platformUuid);
    expect(verifyWebhook(delivered.rawBody, delivered.headers, merchant.webhookSecret)).toMatchObject({ valid: true });
    const secondDriver = cartSessionDriver(second, merchant.platformUuid);
    expect(await secondDriver.pay({ ...live, handle: secondDriver.handleOf(live.cartId) }, SANDBOX_CARDS.approved)).toMatchObject({ status: 'paid' });
    // Its history, encrypted partly with k1 and partly with k2, still decodes: the workers replayed it to go on.
    expect(await secondDriver.handleOf(live.cartId).result()).toEqual({ status: 'paid' });
    const other = await second.createMerchant({ webhookUrl: receiver.url });
    expect((await sealedKeyIds(second)).webhookSecrets.sort()).toEqual(['k1', 'k2']);

    // reseal: everything with k2; a second run finds nothing to do.
    // The customer who paid across the rotation was recorded under k2 already.
    expect(await reseal(keys.k1k2)).toEqual({
      sealingKeyId: 'k2',
      webhookSecrets: 1,
      cardVault: 1,
      otpOutbox: 3,
      orderCustomers: 1,
      eventCustomers: 1,
      dashboardMail: 1,
    });
    expect(await sealedKeyIds(second)).toEqual({
      webhookSecrets: ['k2', 'k2'],
      cardVault: ['k2'],
      otpOutbox: ['k2', 'k2', 'k2', 'k2', 'k2', 'k2'],
      dashboardMail: ['k2', 'k2'],
      orderCustomers: ['k2', 'k2'],
      eventCustomers: ['k2', 'k2'],
    });
    expect(await reseal(keys.k1k2)).toEqual({
      sealingKeyId: 'k2',
      webhookSecrets: 0,
      cardVault: 0,
      otpOutbox: 0,
      orderCustomers: 0,
      eventCustomers: 0,
      dashboardMail: 0,
    });
    await stop(second);

    // k2 alone: k1 is gone, and nothing needed it.
    const third = await stackWith(keys.k2);
    const again = await deliverOne(third, merchant.platformUuid);
    expect(verifyWebhook(again.rawBody, again.headers, merchant.webhookSecret)).toMatchObject({ valid: true });
    expect(await readLatestOutboxCode(third.db, third.config.keyring, cartId)).toMatchObject({ code: '424242', address: 'ada@example.com' });
    expect(other.webhookSecret).not.toBe(merchant.webhookSecret);
  });
});
