import { Hono, type Context } from 'hono';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import type { Db } from '../../core/db/client.js';
import { INSIGHT_PERIODS, insightFunnel, insightSummary, insightWebhookHealth, type InsightPeriod, type InsightQuery } from '../../core/insights/insights.js';
import { getMerchant, listMerchants } from '../../core/merchants/merchants.js';
import type { DashboardEnv } from './env.js';
import { partOrPage } from './respond.js';
import type { Html } from './views/layout.js';
import { funnelView, insightsPage, insightsView, overviewView, webhookHealthView, type InsightPage, type InsightsFrame } from './views/insights.js';

type C = Context<DashboardEnv>;

const DEFAULT_DAYS: InsightPeriod = 7;

/** `?days=` as one of the offered periods; empty is the default, anything else a problem to say. */
function readPeriod(c: C): { days: InsightPeriod; problem?: string } {
  const asked = c.req.query('days')?.trim() ?? '';
  if (asked === '') return { days: DEFAULT_DAYS };
  const days = INSIGHT_PERIODS.find((d) => String(d) === asked);
  return days ? { days } : { days: DEFAULT_DAYS, problem: `days must be 1, 7 or 30, not “${asked.slice(0, 20)}”: showing the last ${DEFAULT_DAYS} days.` };
}

/** What each insight page computes (core/insights/insights.ts) and how it is drawn. */
const FIGURES: Record<InsightPage, (db: Db, query: InsightQuery, names: Map<string, string> | undefined) => Promise<Html>> = {
  overview: async (db, query) => overviewView(await insightSummary(db, query)),
  funnel: async (db, query) => funnelView(await insightFunnel(db, query)),
  webhooks: async (db, query, names) => webhookHealthView(await insightWebhookHealth(db, query), names),
};

const PATHS: Record<InsightPage, string> = { overview: '/', funnel: '/funnel', webhooks: '/webhooks' };

/**
 * Insights, for a merchant (its own carts and endpoint) or an operator (every merchant's, or one
 * chosen): the overview, the funnel and webhook health, for the last 1, 7 or 30 days. Plain links
 * and a GET form, so every page works without JavaScript; htmx swaps the figures in place.
 */
export function insightRoutes(deps: { db: Db }, role: 'merchant' | 'operator') {
  const { db } = deps;
  const app = new Hono<DashboardEnv>();
  const base = role === 'merchant' ? '/dashboard/insights' : '/dashboard/operator/insights';

  for (const page of Object.keys(PATHS) as InsightPage[]) {
    app.get(PATHS[page], async (c) => {
      const period = readPeriod(c);
      const frame: InsightsFrame = { page, base, days: period.days, ...(period.problem ? { problem: period.problem } : {}) };
      let merchant: CartOwner | undefined;
      let who = 'Operator';
      let names: Map<string, string> | undefined;
      if (role === 'merchant') {
        const signedIn = c.get('merchant')!;
        merchant = { platformUuid: signedIn.platformUuid, environment: signedIn.environment };
        who = (await getMerchant(db, signedIn.platformUuid)).name;
      } else {
        const merchants = await listMerchants(db);
        const chosen = c.req.query('merchant')?.trim() ?? '';
        const found = merchants.find((m) => m.platformUuid === chosen);
        if (found) merchant = { platformUuid: found.platformUuid, environment: found.environment };
        else if (chosen) frame.problem = 'Choose a merchant from the list, or Every merchant: showing every merchant.';
        frame.operator = { merchants, merchant: found?.platformUuid ?? '' };
        names = new Map(merchants.map((m) => [m.platformUuid, `${m.name} (${m.environment})`]));
      }
      const figures = await FIGURES[page](db, { days: period.days, ...(merchant ? { merchant } : {}) }, names);
      return c.html(
        await partOrPage(
          c,
          () => insightsView(frame, figures),
          () => insightsPage(frame, figures, { who, role, csrf: c.get('csrf') }),
        ),
        frame.problem ? 422 : 200,
      );
    });
  }
  return app;
}
