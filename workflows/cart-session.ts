import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CartActivities } from '../activities/index.js';
import { searchAttributes, stateQuery, type CartSessionInput, type CartStatus } from './messages.js';

const { recordCartStatus } = proxyActivities<CartActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** One checkout attempt for one cart, from creation until it is paid, failed, cancelled or abandoned. */
export async function cartSession(input: CartSessionInput): Promise<{ status: CartStatus }> {
  let status: CartStatus = 'pending';
  setHandler(stateQuery, () => ({ cartId: input.cartId, status, step: 'contact', expiresOn: input.expiresOn }));

  const moveTo = async (next: CartStatus) => {
    status = next;
    upsertSearchAttributes([{ key: searchAttributes.cartStatus, value: next }]);
    await recordCartStatus({ cartId: input.cartId, status: next });
  };

  const customerFinished = await condition(() => status !== 'pending', input.lifetimeMs);
  if (!customerFinished) await moveTo('abandoned');
  return { status };
}
