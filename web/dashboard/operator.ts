import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { InvalidOrderCursorError, listOrders } from '../../core/orders/orders.js';
import { decodeOrderCursor, encodeOrderCursor } from '../../core/orders/order-cursor.js';
import { LEDGER_STEPS, searchCarts, type CartSearch, type LedgerStep } from '../../core/checkout/cart-search.js';
import { CART_ID_PATTERN } from '../../core/checkout/cart-id.js';
import { CART_STATUSES, type CartStatus } from '../../core/checkout/session.js';
import {
  activateMerchant,
  deactivateMerchant,
  getMerchant,
  listMerchants,
  MerchantNotFoundError,
  type MerchantSummary,
} from '../../core/merchants/merchants.js';
import { disableWebhookEndpoint, OPERATOR_DISABLED_REASON, reenableWebhookEndpoint } from '../../core/webhooks/endpoints.js';
import type { DashboardEnv } from './env.js';
import { dashboardAudit } from './audit.js';
import type { AuditAction } from '../../core/audit/audit-log.js';
import { partOrPage } from './respond.js';
import { notFoundPage } from './views/layout.js';
import { merchantsSection, operatorMerchantPage, operatorPage } from './views/operator.js';
import { temporalWorkflowUrl } from './temporal-link.js';
import { cartSearchPage, type CartSearchForm, type CartSearchView } from './views/cart-search.js';
import { disputeSearchPage } from './views/disputes.js';
import { listDisputes } from '../../core/checkout/disputes.js';
import { DISPUTE_STATUSES, type DisputeStatus } from '../../core/checkout/dispute-model.js';

type C = Context<DashboardEnv>;

const CARTS_PER_PAGE = 50;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;
const A_DATE = 'Enter a date, such as 2030-01-31, or leave it empty.';

/** A date typed in the form (UTC days, `to` inclusive) as an instant; undefined when empty, null when not a date. */
function dayStart(value: string, plusDays = 0): Date | undefined | null {
  if (!value) return undefined;
  const at = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  return Number.isNaN(at) ? null : new Date(at + plusDays * DAY_MS);
}

const isStatus = (value: string): value is CartStatus => (CART_STATUSES as readonly string[]).includes(value);
const isStep = (value: string): value is LedgerStep => (LEDGER_STEPS as readonly string[]).includes(value);

/** What each button does, through the same functions as the operator API and CLI, and what is said after. */
const ACTIONS: Record<string, { run: (db: Db, platformUuid: string) => Promise<MerchantSummary>; done: string; audited: AuditAction }> = {
  deactivate: { run: deactivateMerchant, done: 'is deactivated: no new carts, and its API key no longer signs in', audited: 'merchant.deactivate' },
  activate: { run: activateMerchant, done: 'is active again', audited: 'merchant.activate' },
  'disable-endpoint': {
    audited: 'webhook_endpoint.disable',
    run: (db, p) => disableWebhookEndpoint(db, p, OPERATOR_DISABLED_REASON),
    done: 'no longer receives webhooks; its events are kept as skipped',
  },
  'enable-endpoint': {
    audited: 'webhook_endpoint.enable',
    run: async (db, p) => {
      await reenableWebhookEndpoint(db, p);
      return getMerchant(db, p);
    },
    done: 'receives webhooks again',
  },
};

/**
 * The operators' part of the dashboard: every merchant, managed as the operator API allows, each
 * merchant's carts, and a search over every merchant's carts (cartId, merchant, status, step, creation
 * dates), each cart linked to its workflow in the Temporal UI.
 */
export function operatorRoutes(deps: { db: Db; config: Config }) {
  const { db, config } = deps;
  const app = new Hono<DashboardEnv>();
  const audit = dashboardAudit(deps);

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

  app.get('/carts', async (c) => {
    const q = (name: string) => c.req.query(name)?.trim() ?? '';
    const form: CartSearchForm = { cartId: q('cartId'), merchant: q('merchant'), status: q('status'), step: q('step'), from: q('from'), to: q('to') };
    const merchants = await listMerchants(db);
    const errors: CartSearchView['errors'] = {};
    const search: CartSearch = { limit: CARTS_PER_PAGE };
    if (form.cartId) {
      if (CART_ID_PATTERN.test(form.cartId)) search.cartId = form.cartId;
      else errors.cartId = 'A cart ID is 24 letters, digits, - or _ (the cart-… workflow ID without "cart-"); paste it whole or leave it empty.';
    }
    if (form.merchant) {
      const merchant = merchants.find((m) => m.platformUuid === form.merchant);
      if (merchant) search.merchant = { platformUuid: merchant.platformUuid, environment: merchant.environment };
      else errors.merchant = 'Choose a merchant from the list, or Any.';
    }
    if (form.status) {
      if (isStatus(form.status)) search.status = form.status;
      else errors.status = 'Choose a status from the list, or Any.';
    }
    if (form.step) {
      if (isStep(form.step)) search.step = form.step;
      else errors.step = 'Choose a step from the list, or Any.';
    }
    const createdFrom = dayStart(form.from);
    const createdTo = dayStart(form.to, 1);
    if (createdFrom === null) errors.from = A_DATE;
    else if (createdFrom) search.createdFrom = createdFrom;
    if (createdTo === null) errors.to = A_DATE;
    else if (createdTo) search.createdTo = createdTo;
    const cursor = q('cursor');
    if (cursor) {
      const after = decodeOrderCursor(cursor);
      if (after) search.after = after;
    }
    const valid = Object.keys(errors).length === 0;
    const carts = valid ? await searchCarts(db, search) : [];
    const last = carts.length === CARTS_PER_PAGE ? carts[carts.length - 1] : undefined;
    const nextQuery = last
      ? new URLSearchParams({
          ...Object.fromEntries(Object.entries(form).filter(([, v]) => v !== '')),
          cursor: encodeOrderCursor({ createdAtMicros: last.createdAtMicros, cartId: last.cartId }),
        })
      : undefined;
    return c.html(
      cartSearchPage({
        form,
        errors,
        merchants,
        carts,
        nextHref: nextQuery ? `/dashboard/operator/carts?${nextQuery.toString()}` : null,
        workflowUrl: (cartId) => temporalWorkflowUrl(config, cartId),
        csrf: c.get('csrf'),
      }),
      valid ? 200 : 422,
    );
  });

  app.get('/disputes', async (c) => {
    const form = { status: c.req.query('status')?.trim() ?? '', dueBy: c.req.query('dueBy')?.trim() ?? '' };
    const status = (DISPUTE_STATUSES as readonly string[]).includes(form.status) ? (form.status as DisputeStatus) : undefined;
    const dueBefore = dayStart(form.dueBy, 1);
    const error = dueBefore === null ? A_DATE : undefined;
    const disputes = error ? [] : await listDisputes(db, { ...(status ? { status } : {}), ...(dueBefore ? { dueBefore } : {}), limit: CARTS_PER_PAGE });
    return c.html(disputeSearchPage({ form, disputes, csrf: c.get('csrf'), ...(error ? { error } : {}) }), error ? 422 : 200);
  });

  app.get('/merchants/:platformUuid', async (c) => {
    const platformUuid = c.req.param('platformUuid');
    if (!z.uuid().safeParse(platformUuid).success) return c.html(notFoundPage('This merchant'), 404);
    const merchant = await getMerchant(db, platformUuid).catch((err: unknown) => {
      if (err instanceof MerchantNotFoundError) return undefined;
      throw err;
    });
    if (!merchant) return c.html(notFoundPage('This merchant'), 404);
    const cursor = c.req.query('cursor');
    const page = await listOrders(db, config, merchant, { limit: CARTS_PER_PAGE, ...(cursor ? { cursor } : {}) }).catch((err: unknown) => {
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
      await audit(c, platformUuid, {
        action: chosen.audited,
        target: chosen.audited.startsWith('merchant.') ? `merchant:${platformUuid}` : 'webhook_endpoint:first',
      });
      return await respond(c, `${merchant.name} ${chosen.done}.`);
    } catch (err) {
      if (err instanceof MerchantNotFoundError) return c.html(notFoundPage('This merchant'), 404);
      throw err;
    }
  });

  return app;
}
