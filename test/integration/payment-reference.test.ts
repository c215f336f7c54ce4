import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaymentActivities } from '../../activities/cart-session/payments.js';
import { createRefundActivities } from '../../activities/refund/index.js';
import type { PaymentProcessor, VoidRequest } from '../../core/checkout/payment-processor.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { paidCarts } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * The sandbox simulator as a restarted worker has it: a fresh copy of its module, so none of the
 * first worker's memory, over the same PostgreSQL.
 */
async function restartedSandbox(): Promise<typeof import('../../core/checkout/payment-processors/sandbox.js')> {
  vi.resetModules();
  return import('../../core/checkout/payment-processors/sandbox.js');
}

describe("the processor's payment reference: stored in the ledger at approval, used by refund and void", () => {
  const stack = useTestStack();
  let merchant: CreatedMerchant;
  let carts: ReturnType<typeof paidCarts>;

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Reference Store' });
    carts = paidCarts(stack, merchant);
  });

  const referenceOf = async (cartId: string) =>
    (await stack.db<{ payment_reference: string | null }[]>`select payment_reference from carts where cart_id = ${cartId}`)[0]?.payment_reference;
  const noDelivery = () => Promise.reject(new Error('refundCharge hands nothing to delivery'));
  const refundActivities = (paymentProcessor: PaymentProcessor) =>
    createRefundActivities({
      db: stack.db,
      keyring: stack.config.keyring,
      checkoutBaseUrl: stack.config.checkoutBaseUrl,
      logger: stack.logger,
      paymentProcessor,
      requestDelivery: noDelivery,
      metrics: stack.workerMetrics,
    });

  it('keeps the sandbox charge in PostgreSQL and its reference on the cart row, so a refund after a worker restart succeeds', async () => {
    const cartId = await carts.paidCart();
    const reference = await referenceOf(cartId);
    expect(reference).toMatch(/^ch_sbx_/);
    const [charge] = await stack.db<{ charge_id: string }[]>`select charge_id from sandbox_charges where idempotency_key = ${cartId}`;
    expect(charge?.charge_id).toBe(reference);

    const { createSandboxPaymentProcessor, sandboxRecord } = await restartedSandbox();
    expect(sandboxRecord(cartId)).toBeUndefined();
    const refunds = refundActivities(createSandboxPaymentProcessor(stack.config.environment, { db: stack.db }));
    const answer = await refundCharge(refunds, cartId, 'refund-after-restart', 1000);
    expect(answer).toEqual({ outcome: 'refunded', processorRefundId: expect.stringMatching(/^re_sbx_/) as unknown });
    // Asked again under the same refund key, by yet another process: the same refund, not a second one.
    const again = refundActivities((await restartedSandbox()).createSandboxPaymentProcessor(stack.config.environment, { db: stack.db }));
    expect(await refundCharge(again, cartId, 'refund-after-restart', 1000)).toEqual(answer);
    const stored = await stack.db<{ charge_id: string }[]>`select charge_id from sandbox_refunds where idempotency_key = 'refund-after-restart'`;
    expect(stored).toEqual([{ charge_id: reference }]);
  });

  it('falls back to the lookup by the cart key when the ledger holds no reference (orders paid before it was stored)', async () => {
    const cartId = await carts.paidCart();
    const reference = await referenceOf(cartId);
    await stack.db`update carts set payment_reference = null where cart_id = ${cartId}`;
    const refunds = refundActivities((await restartedSandbox()).createSandboxPaymentProcessor(stack.config.environment, { db: stack.db }));
    expect(await refundCharge(refunds, cartId, 'refund-by-lookup', 500)).toMatchObject({ outcome: 'refunded' });
    expect((await stack.db<{ charge_id: string }[]>`select charge_id from sandbox_refunds where idempotency_key = 'refund-by-lookup'`)[0]?.charge_id).toBe(
      reference,
    );
  });

  it('voids by the stored reference when the workflow names no charge', async () => {
    const cartId = await carts.paidCart();
    const reference = await referenceOf(cartId);
    const sandbox = (await restartedSandbox()).createSandboxPaymentProcessor(stack.config.environment, { db: stack.db });
    const voids: VoidRequest[] = [];
    const recording: PaymentProcessor = { ...sandbox, name: sandbox.name, void: (request) => (voids.push(request), sandbox.void(request)) };
    const payments = createPaymentActivities({
      config: stack.config,
      db: stack.db,
      logger: stack.logger,
      paymentProcessor: recording,
      metrics: stack.workerMetrics,
    });
    await payments.voidPayment({ cartId });
    expect(voids).toEqual([{ idempotencyKey: cartId, chargeId: reference }]);
  });
});

/** The activity as the refund workflow runs it. */
function refundCharge(activities: ReturnType<typeof createRefundActivities>, cartId: string, refundId: string, amount: number) {
  return activities.refundCharge({ refundId, cartId, amount });
}
