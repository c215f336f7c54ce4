import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { InvalidOrderCursorError, listOrders } from '../../core/orders/orders.js';
import {
  activateMerchant,
  deactivateMerchant,
  getMerchant,
  listMerchants,
  MerchantNotFoundError,
  type MerchantSummary,
} from '../../core/merchants/merchants.js';
import { disableWebhookEndpoint, OPERATOR_DISABLED_REASON, reenableWebhookEndpoint } from '../../core/merchants/webhook-endpoints.js';
import type { DashboardEnv } from './env.js';
import { partOrPage } from './respond.js';
import { notFoundPage } from './views/layout.js';
import { merchantsSection, operatorMerchantPage, operatorPage } from './views/operator.js';
import { temporalWorkflowUrl } from './temporal-link.js';

type C = Context<DashboardEnv>;

const CARTS_PER_PAGE = 50;

/** What each button does, through the same functions as the operator API and CLI, and what is said after. */
const ACTIONS: Record<string, { run: (db: Db, platformUuid: string) => Promise<MerchantSummary>; done: string }> = {
  deactivate: { run: deactivateMerchant, done: 'is deactivated: no new carts, and its API key no longer signs in' },
  activate: { run: activateMerchant, done: 'is active again' },
  'disable-endpoint': {
    run: (db, p) => disableWebhookEndpoint(db, p, OPERATOR_DISABLED_REASON),
    done: 'no longer receives webhooks; its events are kept as skipped',
  },
  'enable-endpoint': {
    run: async (db, p) => {
      await reenableWebhookEndpoint(db, p);
      return getMerchant(db, p);
    },
    done: 'receives webhooks again',
  },
};

/**
 * The operators' part of the dashboard: every merchant, managed as the operator API allows, and each
 * merchant's carts with a link to each one's workflow in the Temporal UI.
 */
export function operatorRoutes(deps: { db: Db; config: Config }) {
  const { db, config } = deps;
  const app = new Hono<DashboardEnv>();

  async function respond(c: C, notice?: string) {
    const view = { merchants: await listMerchants(db), csrf: c.get('csrf'), ...(notice ? { notice } : {}) };
    return c.html(
      await partOrPage(
        c,
        () => merchantsSection(view),
        () => operatorPage(view),
      ),
    );
  }

  app.get('/', (c) => respond(c));

  app.get('/merchants/:platformUuid', async (c) => {
    const platformUuid = c.req.param('platformUuid');
    if (!z.uuid().safeParse(platformUuid).success) return c.html(notFoundPage('This merchant'), 404);
    const merchant = await getMerchant(db, platformUuid).catch((err: unknown) => {
      if (err instanceof MerchantNotFoundError) return undefined;
      throw err;
    });
    if (!merchant) return c.html(notFoundPage('This merchant'), 404);
    const cursor = c.req.query('cursor');
    const page = await listOrders(db, merchant, { limit: CARTS_PER_PAGE, ...(cursor ? { cursor } : {}) }).catch((err: unknown) => {
      if (err instanceof InvalidOrderCursorError) return { orders: [], nextCursor: null };
      throw err;
    });
    return c.html(
      operatorMerchantPage({
        merchant,
        orders: page.orders,
        nextHref: page.nextCursor ? `/dashboard/operator/merchants/${platformUuid}?cursor=${encodeURIComponent(page.nextCursor)}` : null,
        workflowUrl: (cartId) => temporalWorkflowUrl(config, cartId),
        csrf: c.get('csrf'),
      }),
    );
  });

  app.post('/merchants/:platformUuid/:action', async (c) => {
    const chosen = ACTIONS[c.req.param('action')];
    const platformUuid = c.req.param('platformUuid');
    if (!chosen || !z.uuid().safeParse(platformUuid).success) return c.html(notFoundPage('This merchant or action'), 404);
    try {
      const merchant = await chosen.run(db, platformUuid);
      return await respond(c, `${merchant.name} ${chosen.done}.`);
    } catch (err) {
      if (err instanceof MerchantNotFoundError) return c.html(notFoundPage('This merchant'), 404);
      throw err;
    }
  });

  return app;
}
