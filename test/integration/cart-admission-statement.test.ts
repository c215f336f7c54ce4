import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * Migration 062 took the cart's row out of admit_cart_request. An instance of 1.2 still running during
 * a deploy calls it as before, with the row, and inserts the row itself when `row_inserted` is false:
 * so the function must admit, write no row, and say so.
 */
describe('admit_cart_request as 1.2 calls it, with a ledger row', () => {
  const stack = useTestStack();
  let platformUuid: string;

  beforeAll(async () => {
    ({ platformUuid } = await stack.createMerchant({ name: 'Deploying Store' }));
  });

  it('admits, writes no cart row and answers row_inserted false', async () => {
    const { db } = stack;
    const { cartObject } = validCartRequest(platformUuid);
    const cartId = randomUUID();
    const limits = () => db.json([{ bucket: `deploy:${randomUUID()}`, max: 10, windowSeconds: 60 }]);
    const row = db.json({
      cart_id: cartId,
      currency: cartObject.cart.currency,
      amount: 1_000,
      expires_on: new Date(Date.now() + 60_000).toISOString(),
      created_at: new Date().toISOString(),
      store: cartObject.store,
      cart: cartObject.cart,
    });

    const [answer] = await db<{ admission: string; row_inserted: boolean }[]>`
      select admission, row_inserted from admit_cart_request(${limits()}, ${platformUuid}, ${stack.config.environment}, null, ${limits()}, ${limits()}, ${row})`;

    expect(answer).toEqual({ admission: 'admitted', row_inserted: false });
    expect(await db`select 1 from carts where cart_id = ${cartId}`).toHaveLength(0);
  });
});
