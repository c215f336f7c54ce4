import { SANDBOX_CURRENCIES } from '../../core/checkout/processor-amounts.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { refundOrder, type RefundDeps } from '../../core/orders/request-refund.js';
import { refundWorkflow } from '../../workflows/refund/client.js';
import { refundWorkflowId } from '../../workflows/refund/messages.js';
import { paidCarts } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** What a start whose deadline struck says, whether or not the server had accepted it. */
const lostAcknowledgement = () => Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), { code: 4 });

describe('a refund whose start acknowledgement was lost is reconciled, never orphaned', () => {
  const stack = useTestStack();
  let merchant: CreatedMerchant;
  let carts: ReturnType<typeof paidCarts>;

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Lost Ack Store' });
    carts = paidCarts(stack, merchant);
  });

  const owner = () => ({ platformUuid: merchant.platformUuid, environment: stack.config.environment });
  const refundRows = (cartId: string) =>
    stack.db<{ id: string; amount: string; status: string }[]>`select id, amount, status from refunds where cart_id = ${cartId} order by created_at`;

  /** The real port, whose start reaches Temporal but whose answer is then lost, or never reaches it. */
  const portWith = (startReachesServer: boolean): RefundDeps['refundWorkflow'] => {
    const real = refundWorkflow(stack.temporal.client, stack.config);
    return {
      workflowId: real.workflowId,
      start: async (input) => {
        if (startReachesServer) await real.start(input);
        throw lostAcknowledgement();
      },
    };
  };

  it('keeps the workflow Temporal accepted: the reservation commits, the refund settles, nothing is terminated', async () => {
    const cartId = await carts.paidCart();
    const deps: RefundDeps = { db: stack.db, temporal: stack.temporal, refundWorkflow: portWith(true), currencies: SANDBOX_CURRENCIES };

    const refund = await refundOrder(deps, { ...owner(), cartId, amount: 1000, reason: 'Lost acknowledgement' });
    expect(refund).toMatchObject({ cartId, amount: 1000, reason: 'Lost acknowledgement' });
    expect(['pending', 'succeeded']).toContain(refund.status);

    const handle = stack.temporal.client.workflow.getHandle(refundWorkflowId(refund.id));
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    const rows = await waitFor(
      async () => {
        const found = await refundRows(cartId);
        return found[0]?.status === 'succeeded' ? found : undefined;
      },
      { what: 'the refund settled' },
    );
    expect(rows.map((r) => ({ id: r.id, amount: Number(r.amount), status: r.status }))).toEqual([{ id: refund.id, amount: 1000, status: 'succeeded' }]);
    const [cart] = await stack.db<{ status: string; refunded_amount: string }[]>`select status, refunded_amount from carts where cart_id = ${cartId}`;
    expect(cart).toMatchObject({ status: 'partially_refunded' });
    expect(Number(cart!.refunded_amount)).toBe(1000);
  });

  it('releases the reservation when the workflow truly does not exist: nothing is reserved, nothing refunded', async () => {
    const cartId = await carts.paidCart();
    const deps: RefundDeps = { db: stack.db, temporal: stack.temporal, refundWorkflow: portWith(false), currencies: SANDBOX_CURRENCIES };

    await expect(refundOrder(deps, { ...owner(), cartId, amount: 1000 })).rejects.toThrow(/DEADLINE_EXCEEDED/);
    expect(await refundRows(cartId)).toEqual([]);
    const [cart] = await stack.db<{ status: string; refunded_amount: string }[]>`select status, refunded_amount from carts where cart_id = ${cartId}`;
    expect(cart).toMatchObject({ status: 'paid' });
    expect(Number(cart!.refunded_amount)).toBe(0);
  });
});
