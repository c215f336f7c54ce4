import { Hono, type Context } from 'hono';
import { bearerTokenMatches } from '../../core/bearer-token.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { authenticateApiKey, authenticateApiKeyId } from '../../core/merchants/api-keys.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { dashboardAuditAs, sessionActor } from './audit.js';
import type { DashboardEnv } from './env.js';
import type { DashboardSessions } from './session.js';
import type { SignInLimit } from './sign-in-limit.js';
import { dashboardSignInLinks } from './sign-in-link.js';
import { dashboardMessage } from './views/layout.js';
import { signInLinkPage, signInPage } from './views/sign-in.js';

type C = Context<DashboardEnv>;

const field = async (c: C, name: string) => {
  const value = (await c.req.parseBody())[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** Sign-in and sign-out for merchants (API key, or the CLI's link) and operators (OPERATOR_TOKEN). */
export function signInRoutes(deps: { config: Config; db: Db; logger: Logger; sessions: DashboardSessions; limit: SignInLimit }) {
  const { config, db, logger, sessions } = deps;

  /**
   * A refused sign-in counts against the client's address; past the limit, the answer is 429 instead
   * of the refusal. A right credential is checked first and never counted, so a flood of wrong ones
   * from an address (or from everyone behind a proxy) cannot lock out the people who hold one.
   */
  async function refused(c: C, answer: () => Response | Promise<Response>) {
    const retryAfter = await deps.limit(c);
    if (retryAfter === undefined) return answer();
    c.header('Retry-After', String(retryAfter));
    return c.html(dashboardMessage('Too many sign-in attempts', `Wait ${Math.ceil(retryAfter / 60)} minute(s), then try again.`), 429);
  }
  const links = dashboardSignInLinks(config);
  const auditAs = dashboardAuditAs(deps);

  /** Switched off (DASHBOARD_BOOTSTRAP_SIGN_IN=false) once the first owners and operators have passkeys. */
  const bootstrapOff = (c: C) =>
    c.html(
      dashboardMessage('Sign in with your passkey', 'Signing in with an API key, a sign-in link or the operator token is switched off on this deployment.', {
        href: '/dashboard/sign-in',
        label: 'Sign in with a passkey',
      }),
      403,
    );
  const app = new Hono<DashboardEnv>();

  app.get('/sign-in', (c) => c.html(signInPage({ role: 'merchant', csrf: c.get('csrf') })));
  app.get('/sign-in/operator', (c) => c.html(signInPage({ role: 'operator', csrf: c.get('csrf') })));

  app.post('/sign-in', async (c) => {
    if (!config.dashboardBootstrapSignIn) return bootstrapOff(c);
    const merchant = await authenticateApiKey(db, await field(c, 'apiKey'), config.environment);
    if (!merchant) {
      logger.info('dashboard sign-in refused: API key unknown, revoked or of another environment');
      const error = `This is not an active ${config.environment} API key. Paste the whole key (sk_${config.environment}_…); if it was rotated or revoked, ask your operator for the new one.`;
      return refused(c, () => c.html(signInPage({ role: 'merchant', csrf: c.get('csrf'), error }), 401));
    }
    // The dashboard does everything a merchant may: only a full key opens it.
    if (merchant.scope !== 'full') {
      logger.info('dashboard sign-in refused: a key of a narrower scope than full');
      const error = `This key's scope is ${merchant.scope}: only a key of scope full signs in to the dashboard.`;
      return c.html(signInPage({ role: 'merchant', csrf: c.get('csrf'), error }), 403);
    }
    await sessions.start(c, { platformUuid: merchant.platformUuid, role: 'owner', credential: { apiKeyId: merchant.keyId } });
    return c.redirect('/dashboard/orders', 303);
  });

  app.post('/sign-in/operator', async (c) => {
    if (!config.dashboardBootstrapSignIn) return bootstrapOff(c);
    if (!bearerTokenMatches(`Bearer ${await field(c, 'operatorToken')}`, config.operatorToken)) {
      logger.warn('dashboard operator sign-in refused: wrong token');
      const error = config.operatorToken
        ? 'This is not the operator token. Paste OPERATOR_TOKEN as set on this deployment.'
        : 'No OPERATOR_TOKEN is set on this deployment: operators cannot sign in.';
      return refused(c, () => c.html(signInPage({ role: 'operator', csrf: c.get('csrf'), error }), 401));
    }
    await sessions.start(c, { platformUuid: undefined, role: 'operator_admin', credential: { operatorTokenDigest: sessions.operatorTokenDigest! } });
    return c.redirect('/dashboard/operator', 303);
  });

  const expiredLink = (c: C) =>
    c.html(
      dashboardMessage(
        'This sign-in link no longer works',
        'Sign-in links last ten minutes and die with the API key they were made for. Ask for a new one, or sign in with your API key.',
        {
          href: '/dashboard/sign-in',
          label: 'Sign in with your API key',
        },
      ),
      410,
    );

  /** The link's token, if it is ours, unexpired, and its key is still the merchant's active key. */
  const linkMerchant = (token: string) => {
    const link = links.read(token);
    return link ? authenticateApiKeyId(db, link, config.environment) : undefined;
  };

  app.get('/link', async (c) => {
    const token = c.req.query('token') ?? '';
    const merchant = await linkMerchant(token);
    if (!merchant) return expiredLink(c);
    const { name } = await getMerchant(db, merchant.platformUuid);
    return c.html(signInLinkPage({ token, merchantName: name, csrf: c.get('csrf') }));
  });

  app.post('/link', async (c) => {
    if (!config.dashboardBootstrapSignIn) return bootstrapOff(c);
    const merchant = await linkMerchant(await field(c, 'token'));
    if (!merchant) return refused(c, () => expiredLink(c));
    await sessions.start(c, { platformUuid: merchant.platformUuid, role: 'owner', credential: { apiKeyId: merchant.keyId } });
    return c.redirect('/dashboard/orders', 303);
  });

  app.post('/sign-out', async (c) => {
    const session = await sessions.read(c);
    await sessions.end(c);
    if (session?.userId)
      await auditAs(c, sessionActor(session), session.platformUuid ?? null, { action: 'person.sign_out', target: `person:${session.userId}` });
    return c.redirect('/dashboard/sign-in', 303);
  });

  return app;
}
