import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { RefundActivities, RefundAnswer, SettledRefund } from '../../activities/refund/index.js';
import type { CartEventInput } from '../../core/webhooks/events.js';
import { REFUND_NOT_RESERVED, refundWorkflowId, type RefundInput } from '../../workflows/refund/messages.js';
import { refundPayment } from '../../workflows/refund/workflow.js';
import { useWorkflowEnvironment } from '../support/workflow-environment.js';

type Call = { name: string; input: unknown };

/** The refund workflow's activities as mocks that record each call; the processor answers `answer`. */
function refundActivities(answer: RefundAnswer, options: { reserved?: boolean } = {}) {
  const calls: Call[] = [];
  const settled: SettledRefund = {
    orderStatus: 'partially_refunded',
    refund: { id: 'rf_1', amount: 1000, refundedTotal: 1000, reason: 'Damaged in transit' },
  };
  const activities = {
    confirmRefundReservation: (input: { refundId: string }) => {
      calls.push({ name: 'confirmRefundReservation', input });
      // Never reserved: the rollback case, told quickly rather than after the six real tries.
      return options.reserved === false ? Promise.reject(ApplicationFailure.nonRetryable('not reserved')) : Promise.resolve();
    },
    refundCharge: (input: { refundId: string; cartId: string; amount: number }) => {
      calls.push({ name: 'refundCharge', input });
      return Promise.resolve(answer);
    },
    settleRefund: (input: { refundId: string; processorRefundId: string }) => {
      calls.push({ name: 'settleRefund', input });
      return Promise.resolve(settled);
    },
    failRefund: (input: { refundId: string; failureCode: string }) => {
      calls.push({ name: 'failRefund', input });
      return Promise.resolve();
    },
    recordCartEvent: (input: CartEventInput) => {
      calls.push({ name: 'recordCartEvent', input });
      return Promise.resolve({ eventId: 'evt_1', sequence: 3 });
    },
  } satisfies Partial<RefundActivities>;
  return { activities, calls, settled };
}

describe('refund workflow, activities mocked', () => {
  const environment = useWorkflowEnvironment(['confirmRefundReservation', 'refundCharge', 'settleRefund', 'failRefund', 'recordCartEvent']);
  const run = () => {
    const input: RefundInput = { refundId: `rf_${randomUUID()}`, cartId: `cart_${randomUUID()}`, platformUuid: randomUUID(), amount: 1000 };
    return environment.env.client.workflow
      .execute(refundPayment, { workflowId: refundWorkflowId(input.refundId), taskQueue: environment.taskQueue, args: [input] })
      .then((outcome) => ({ input, outcome }));
  };

  it('refunds under the refund id, settles the ledger and announces order_refunded', async () => {
    const mocks = refundActivities({ outcome: 'refunded', processorRefundId: 're_1' });
    environment.mockActivities(mocks.activities);
    const { input, outcome } = await run();
    expect(outcome).toEqual({ status: 'succeeded' });
    expect(mocks.calls).toEqual([
      { name: 'confirmRefundReservation', input: { refundId: input.refundId } },
      { name: 'refundCharge', input: { refundId: input.refundId, cartId: input.cartId, amount: 1000 } },
      { name: 'settleRefund', input: { refundId: input.refundId, processorRefundId: 're_1' } },
      {
        name: 'recordCartEvent',
        input: { cartId: input.cartId, event: 'order_refunded', status: 'partially_refunded', refund: mocks.settled.refund },
      },
    ]);
  });

  it('records a declined refund as failed with its code, and announces nothing', async () => {
    const mocks = refundActivities({ outcome: 'declined', failureCode: 'refund_declined' });
    environment.mockActivities(mocks.activities);
    const { input, outcome } = await run();
    expect(outcome).toEqual({ status: 'failed', failureCode: 'refund_declined' });
    expect(mocks.calls.map((c) => c.name)).toEqual(['confirmRefundReservation', 'refundCharge', 'failRefund']);
    expect(mocks.calls[2]!.input).toEqual({ refundId: input.refundId, failureCode: 'refund_declined' });
  });

  it('asks nothing of the processor when the reservation never became visible', async () => {
    const mocks = refundActivities({ outcome: 'refunded', processorRefundId: 're_1' }, { reserved: false });
    environment.mockActivities(mocks.activities);
    expect((await run()).outcome).toEqual({ status: 'failed', failureCode: REFUND_NOT_RESERVED });
    expect(mocks.calls.map((c) => c.name)).toEqual(['confirmRefundReservation']);
  });
});
