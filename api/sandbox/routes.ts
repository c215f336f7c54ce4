import { Hono } from 'hono';
import { clientAddress } from '../../core/client-address.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { merchantAuth } from '../merchant/auth.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { advanceSandboxCart } from './advance-cart.js';
import { completeSandboxCart } from './complete-cart.js';
import { sandboxDisputeRoutes } from './dispute-routes.js';
import type { SandboxDeps } from './deps.js';
import { SANDBOX_MOUNT } from './mount.js';
import { ADVANCE_CART, advanceRequestSchema, COMPLETE_CART, completeRequestSchema, SANDBOX_BODY_BYTES } from './sandbox-paths.js';

/**
 * `/v2/sandbox/…`: what a merchant's developer drives a sandbox checkout with, by API, with its API key
 * (docs/api.md, "Sandbox helpers"). api/app.ts mounts it in a sandbox deployment only, so production
 * answers 404 to all of it. A later helper (its own *-routes.ts) joins with `app.route('/', …)` below.
 */
export function sandboxRoutes(deps: SandboxDeps) {
  if (deps.config.environment === 'production') throw new Error('The sandbox helpers are never served in production.');
  const app = new Hono();
  app.use(merchantAuth({ db: deps.db, environment: deps.config.environment }));
  const answer = (state: { cartId: string; status: string; failureCode?: string }) => ({
    cartId: state.cartId,
    status: state.status,
    ...(state.failureCode ? { failureCode: state.failureCode } : {}),
  });

  serve(app, SANDBOX_MOUNT, COMPLETE_CART, jsonBody(SANDBOX_BODY_BYTES), async (c) => {
    const body = await readValidJson(c, completeRequestSchema);
    const state = await completeSandboxCart(deps, {
      owner: c.get('merchant'),
      cartId: c.req.param('cartId'),
      address: clientAddress(c, deps.config.trustedProxyHops),
      outcome: body.outcome,
      ...(body.captureMethod ? { captureMethod: body.captureMethod } : {}),
    });
    return c.json(answer(state));
  });
  refuseOtherMethods(app, SANDBOX_MOUNT, COMPLETE_CART);

  serve(app, SANDBOX_MOUNT, ADVANCE_CART, jsonBody(SANDBOX_BODY_BYTES), async (c) => {
    const body = await readValidJson(c, advanceRequestSchema);
    const state = await advanceSandboxCart(deps, { owner: c.get('merchant'), cartId: c.req.param('cartId'), to: body.to });
    return c.json(answer(state));
  });
  refuseOtherMethods(app, SANDBOX_MOUNT, ADVANCE_CART);
  app.route('/', sandboxDisputeRoutes(deps));
  return app;
}
