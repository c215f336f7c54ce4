import type { Client } from '@temporalio/client';
import { createCartEventActivities } from '../../activities/shared/cart-events.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { deliveryRequests } from '../../workflows/webhook-delivery/client.js';

/**
 * The event-recording activity outside a worker, as the worker builds it (worker/activities.ts), with
 * the test's own client handing each event to its cart's delivery workflow.
 */
export function cartEvents(stack: { config: Pick<Config, 'temporal' | 'webhooks' | 'keyring' | 'checkoutBaseUrl'>; db: Db; temporal: { client: Client } }) {
  return createCartEventActivities({
    db: stack.db,
    keyring: stack.config.keyring,
    checkoutBaseUrl: stack.config.checkoutBaseUrl,
    requestDelivery: deliveryRequests(stack.temporal.client, stack.config),
  });
}
