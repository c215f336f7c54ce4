import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { eagerStartIdentity } from '../../core/temporal/connection.js';
import { cartSessionDriver, historyEvents, type Session } from '../support/cart-session-driver.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';

/**
 * Who took each workflow task of a session, in order. A task handed back in the start's answer is
 * recorded as started by the starting client (the server writes the start request's identity), one
 * a worker polled by that worker.
 */
async function taskTakers(session: Session): Promise<string[]> {
  return (await historyEvents(session.handle)).flatMap((e) =>
    e.workflowTaskStartedEventAttributes ? [e.workflowTaskStartedEventAttributes.identity ?? ''] : [],
  );
}

/** Created through the API, then the customer's path to a paid order. */
async function paidSession(stack: TestStack): Promise<Session> {
  const merchant = await stack.createMerchant({ name: 'Eager Store' });
  const driver = cartSessionDriver(stack, merchant.platformUuid);
  const session = await driver.createSession();
  await driver.sendCode(session);
  await driver.verify(session, await driver.sentCode(session));
  expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
  return session;
}

describe('create-cart with TEMPORAL_EAGER_START', () => {
  const stack = useTestStack({ TEMPORAL_EAGER_START: 'true' });

  it("gets the session's first workflow task in the start's answer, and the session then runs to paid", async () => {
    const session = await paidSession(stack);
    const takers = await taskTakers(session);
    expect(takers[0]).toBe(eagerStartIdentity());
    // The worker that ran the eager task keeps the session in its cache: every later task is its.
    expect(takers.length).toBeGreaterThan(1);
    expect(new Set(takers.slice(1))).toEqual(new Set([stack.worker.options.identity]));
  });
});

describe('create-cart without it', () => {
  const stack = useTestStack();

  it('leaves the first workflow task to a worker that polls for it', async () => {
    const takers = await taskTakers(await paidSession(stack));
    expect(takers[0]).toBe(stack.worker.options.identity);
    expect(takers).not.toContain(eagerStartIdentity());
  });
});
