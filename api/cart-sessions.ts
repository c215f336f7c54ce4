import { WorkflowIdReusePolicy } from '@temporalio/client';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { cartWorkflowId, newCartId } from '../core/ids.js';
import { cartTotal } from '../core/money.js';
import type { CreateCartRequest } from '../core/schemas/cart.js';
import { withDeadline, type Temporal } from '../core/temporal.js';
import { CART_SESSION_WORKFLOW, searchAttributes, type CartSessionInput } from '../workflows/messages.js';
import { ApiError } from './errors.js';

export interface CreatedCart {
  cartId: string;
  expiresOn: string;
}

const TEMPORAL_START_DEADLINE_MS = 5_000;

/**
 * Creates the ledger row and starts the workflow as one unit: the row is written in a transaction
 * that commits only after Temporal has accepted the workflow, so a failure on either side leaves
 * nothing behind.
 */
export async function createCartSession(
  deps: { config: Config; db: Db; temporal: Temporal },
  request: CreateCartRequest,
): Promise<CreatedCart> {
  const { config, db, temporal } = deps;
  const { store, cart } = request.cartObject;

  const [merchant] = await db<{ name: string }[]>`
    select name from merchants
    where platform_uuid = ${store.platformUuid} and environment = ${config.environment} and status = 'active'`;
  if (!merchant) {
    throw new ApiError('UNKNOWN_PLATFORM', `No active ${config.environment} merchant has this platformUuid. Check the value you were given for this environment.`, [
      { path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' },
    ]);
  }

  const cartId = newCartId();
  const createdAt = new Date();
  const expiresOn = new Date(createdAt.getTime() + config.sessionLifetimeMs).toISOString();
  const amount = cartTotal(cart.items);
  const input: CartSessionInput = {
    cartId,
    platformUuid: store.platformUuid,
    storeName: store.name,
    amount,
    currency: cart.currency,
    expiresOn,
    lifetimeMs: config.sessionLifetimeMs,
  };

  await db.begin(async (tx) => {
    await tx`
      insert into carts (cart_id, platform_uuid, environment, status, currency, amount, store, cart, expires_on, created_at)
      values (${cartId}, ${store.platformUuid}, ${config.environment}, 'pending', ${cart.currency}, ${amount},
              ${tx.json(store)}, ${tx.json(cart)}, ${expiresOn}, ${createdAt})`;
    await withDeadline(temporal, TEMPORAL_START_DEADLINE_MS, () =>
      temporal.client.workflow.start(CART_SESSION_WORKFLOW, {
        workflowId: cartWorkflowId(cartId),
        taskQueue: config.temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        memo: { storeName: store.name },
        typedSearchAttributes: [
          { key: searchAttributes.merchantId, value: store.platformUuid },
          { key: searchAttributes.cartStatus, value: 'pending' },
          { key: searchAttributes.cartTotal, value: amount },
          { key: searchAttributes.currency, value: cart.currency },
        ],
      }),
    );
  });

  return { cartId, expiresOn };
}
