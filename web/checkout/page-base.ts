import type { Context } from 'hono';
import { recordFunnelStep, type RecordedFunnelStep } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { deriveCsrfKey } from '../csrf.js';
import { negotiateLocale } from '../i18n/index.js';
import { requestLocale } from '../i18n/request.js';
import type { WebMetrics } from '../metrics.js';
import type { WebEnv } from '../security-headers.js';
import { browserBinding } from './browser-binding.js';
import { customerActions } from '../../application/checkout/customer-actions.js';
import { allowFraming, isEmbedded } from './embedding.js';
import { mirroredActions } from './mirrored-actions.js';
import { checkoutLimits } from './limits.js';
import { loadCheckoutSession, type CheckoutSession } from './load-session.js';
import type { StepView } from './views/step-view.js';

export interface CheckoutDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  metrics: WebMetrics;
}

export type C = Context<WebEnv>;
export type Extras = Pick<StepView, 'errors' | 'notice' | 'values'>;

/**
 * What every part of the page shares, made once per app (routes.ts): the dependencies, the CSRF key,
 * the workflow's actions, the limits, and the one guard of every step after verification.
 */
export function pageBase(deps: CheckoutDeps) {
  const { config, logger } = deps;
  const production = config.environment === 'production';
  const binding = browserBinding({ checkoutBaseUrl: config.checkoutBaseUrl });
  const framedBinding = browserBinding({ checkoutBaseUrl: config.checkoutBaseUrl, framed: true });
  /** The binding whose cookie this request can keep: the embedded page's is partitioned (embedding.ts). */
  const bindingFor = (c: C) => (isEmbedded(c) ? framedBinding : binding);

  /** Whether this browser may see and act on the session's step (web/checkout/browser-binding.ts): the one guard. */
  const holds = (c: C, session: CheckoutSession) => bindingFor(c).holds(c, session.state.step, session.browserBinding);

  /**
   * The session behind a token; a customer who asked for no language we speak gets the cart's country's.
   * An embedded page's answer may be framed by the merchant's proven domains, and by them alone.
   */
  async function loadSession(c: C, token: string): Promise<CheckoutSession | undefined> {
    const session = await loadCheckoutSession(deps, token);
    if (session && !c.get('localeAsked')) c.set('locale', negotiateLocale({ country: session.cart.country }));
    if (session && isEmbedded(c)) await allowFraming(c, deps.db, session.platformUuid, !production);
    return session;
  }

  /**
   * The dashboard's funnel (docs/dashboard.md): the first time the page reached a step, recorded here
   * where it happens, after the workflow accepted it. A failed write costs the funnel one step of one
   * session, never the customer their checkout.
   */
  async function reached(session: CheckoutSession, step: RecordedFunnelStep) {
    try {
      await recordFunnelStep(deps.db, session.cartId, step);
    } catch (err) {
      logger.warn({ err, cartId: session.cartId, step }, 'funnel step not recorded');
    }
  }

  return {
    deps,
    config,
    logger,
    production,
    sandbox: production ? undefined : { otp: config.sandboxOtp },
    csrfKey: deriveCsrfKey(config.keyring),
    actions: mirroredActions(
      deps.db,
      customerActions(deps.temporal, config, { stateQueried: () => deps.metrics.pageStateQueries.inc({ reason: 'payment_outcome' }) }),
    ),
    limits: checkoutLimits(deps),
    bindingFor,
    holds,
    loadSession,
    reached,
  };
}

export type PageBase = ReturnType<typeof pageBase>;

/** The language the request negotiated (set by the locale middleware, locale.ts). */
export const locale = (c: C) => requestLocale(c);

/** The verified contact's saved-card key, when this session may offer, save and charge saved cards. */
export function offersSavedCards({ state, savedCardsAllowed }: CheckoutSession): string | undefined {
  return state.step === 'card' && state.status === 'pending' && savedCardsAllowed ? state.cardKey : undefined;
}
