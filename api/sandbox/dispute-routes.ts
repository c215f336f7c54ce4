import { Hono } from 'hono';
import { openSandboxDispute } from '../../application/disputes/sandbox-dispute.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { getOrder } from '../../core/orders/orders.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { disputeWorkflows } from '../../workflows/dispute/client.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { OPEN_SANDBOX_DISPUTE, SANDBOX_DISPUTE_BODY_BYTES, sandboxDisputeRequestSchema } from './dispute-paths.js';
import { SANDBOX_MOUNT } from './mount.js';

/** `POST /v2/sandbox/carts/{cartId}/dispute`, joined to the sandbox helpers (./routes.ts: the API key checked there; not served in production). */
export function sandboxDisputeRoutes(deps: { config: Config; db: Db; temporal: Temporal }) {
  const { config, db } = deps;
  const opening = { db, config, disputes: disputeWorkflows(deps.temporal.client, config) };
  const app = new Hono();

  serve(app, SANDBOX_MOUNT, OPEN_SANDBOX_DISPUTE, jsonBody(SANDBOX_DISPUTE_BODY_BYTES), async (c) => {
    const cartId = c.req.param('cartId');
    const body = await readValidJson(c, sandboxDisputeRequestSchema);
    const merchant = c.get('merchant');
    await openSandboxDispute(opening, merchant, cartId, body.reason ?? 'fraudulent');
    return c.json(await getOrder(db, config, merchant, cartId), 202);
  });
  refuseOtherMethods(app, SANDBOX_MOUNT, OPEN_SANDBOX_DISPUTE);
  return app;
}
