import { condition, defineUpdate, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { FloorActivities } from './activities.js';

/**
 * The least of Temporal a checkout needs (issue 53): a paid session is one start, the customer's three
 * updates (send code, verify, Pay), one charge and one webhook send; an abandoned one is one start, one
 * timer and the `order_abandoned` webhook's send, which the specification asks of every abandoned
 * checkout. Every body is empty, so what these cost is Temporal's own: the server, the SDK and its
 * sandbox. Everything our sessions do beyond this counts against us (scripts/bench/session-cost.ts).
 */
export const floorSendCode = defineUpdate<void>('sendCode');
export const floorVerify = defineUpdate<void>('verifyCode');
export const floorPay = defineUpdate<void>('pay');

const { charge, sendWebhook } = proxyActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

export async function floorPaidSession(): Promise<void> {
  let paid = false;
  setHandler(floorSendCode, () => undefined);
  setHandler(floorVerify, () => undefined);
  setHandler(floorPay, async () => {
    await charge();
    paid = true;
  });
  await condition(() => paid);
  await sendWebhook();
}

export async function floorAbandonedSession(lifetimeSeconds: number): Promise<void> {
  await sleep(lifetimeSeconds * 1000);
  await sendWebhook();
}
