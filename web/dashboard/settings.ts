import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import {
  BrandColourRejectedError,
  DomainsRejectedError,
  getMerchant,
  setMerchantBrandColour,
  setMerchantDomains,
  setMerchantSavedCards,
} from '../../core/merchants/merchants.js';
import { createWebhookEndpointSchema } from '../../core/webhooks/endpoint-schema.js';
import {
  changeWebhookUrl,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  EndpointDisabledByOperatorError,
  listEndpointDeliveries,
  listWebhookEndpoints,
  WebhookEndpointNotFoundError,
  WebhookEndpointRefusedError,
  WebhookUrlRejectedError,
} from '../../core/webhooks/endpoints.js';
import { rotateWebhookSecret } from '../../core/webhooks/secrets.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { sendTestWebhook } from '../../core/webhooks/test-event.js';
import { replayDeps, replayEvent, WebhookEventNotFoundError, type ReplaySender } from '../../core/webhooks/replay.js';
import { boundedDeliveryRequests } from '../../workflows/webhook-delivery/client.js';
import { verifyDomainsNow } from '../../workflows/domain-verification/client.js';
import type { DashboardEnv } from './env.js';
import { dashboardAudit } from './audit.js';
import { manualSendRefusal, testEventGuard, type ManualSendRefusal } from './manual-sends.js';
import { partOrPage } from './respond.js';
import {
  brandSection,
  savedCardsSection,
  deliveriesSection,
  domainsSection,
  endpointSection,
  endpointsSection,
  secretSection,
  testSection,
  settingsPage,
  type SettingsFormResult,
} from './views/settings-page.js';

type C = Context<DashboardEnv>;

const RECENT_DELIVERIES = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TEMPORAL_DEADLINE_MS = 5_000;
/** How long a save or "Check now" waits for the worker's domain check (its fetch is bounded at 10 s). */
const DOMAIN_CHECK_WAIT_MS = 12_000;
const SECTIONS = {
  url: endpointSection,
  endpoints: endpointsSection,
  test: testSection,
  secret: secretSection,
  domains: domainsSection,
  brand: brandSection,
  savedCards: savedCardsSection,
  replay: deliveriesSection,
};

const field = async (c: C, name: string) => {
  const value = (await c.req.parseBody())[name];
  return typeof value === 'string' ? value : '';
};

/**
 * A merchant's settings page (served at /dashboard/webhooks, where it began as the webhook settings):
 * the endpoint URL (checked as the operator path checks it), a signed test event, secret rotation,
 * allowed domains, the brand colour, saved cards, recent deliveries and their replay. Every change goes
 * through the functions the operator API and CLI use (core/webhooks/endpoints.ts,
 * webhook-secrets.ts and merchants.ts, core/webhooks/replay.ts), for the signed-in merchant only.
 */
export function settingsRoutes(deps: { config: Config; db: Db; temporal: Temporal } & ReplaySender) {
  const { config, db, temporal } = deps;
  const audit = dashboardAudit(deps);
  const replays = replayDeps({ ...deps, requestDelivery: boundedDeliveryRequests(temporal, config, TEMPORAL_DEADLINE_MS) });
  const app = new Hono<DashboardEnv>();
  const me = (c: C) => c.get('merchant')!.platformUuid;
  const maySendTestEvent = testEventGuard(deps);
  const refusedWith = (c: C, refused: ManualSendRefusal) => {
    if (refused.retryAfterSeconds !== undefined) c.header('Retry-After', String(refused.retryAfterSeconds));
    return refused.status;
  };

  async function respond(c: C, result?: SettingsFormResult, status: 200 | 202 | 404 | 409 | 422 | 429 = 200) {
    const platformUuid = me(c);
    const [merchant, deliveries, endpoints] = await Promise.all([
      getMerchant(db, platformUuid),
      listEndpointDeliveries(db, platformUuid, { limit: RECENT_DELIVERIES }),
      listWebhookEndpoints(db, platformUuid),
    ]);
    const view = { merchant, deliveries, endpoints, csrf: c.get('csrf'), ...(result ? { result } : {}) };
    return c.html(
      await partOrPage(
        c,
        () => SECTIONS[result?.form ?? 'url'](view),
        () => settingsPage({ ...view, who: merchant.name }),
      ),
      status,
    );
  }

  app.get('/webhooks', (c) => respond(c));

  app.post('/webhooks/url', async (c) => {
    const value = (await field(c, 'webhookUrl')).trim();
    try {
      const before = (await getMerchant(db, me(c))).webhookUrl;
      await changeWebhookUrl(db, me(c), value, 'merchant', config.webhooks);
      await audit(c, me(c), { action: 'webhook_endpoint.update', target: 'webhook_endpoint:first', before: { url: before }, after: { url: value } });
      return await respond(c, { form: 'url', saved: true });
    } catch (err) {
      // The same refusal as the API's ENDPOINT_DISABLED_BY_OPERATOR: an operator's disable binds the merchant.
      if (err instanceof EndpointDisabledByOperatorError) return respond(c, { form: 'url', value, error: [err.message] }, 409);
      if (!(err instanceof WebhookUrlRejectedError)) throw err;
      // The detail (what our resolver answered) is for operators: the merchant gets the generic problems.
      deps.logger.warn({ platformUuid: me(c), problems: err.problems }, 'a merchant’s webhook URL was refused');
      return respond(c, { form: 'url', value, error: err.merchantProblems.map((p) => `The URL ${p}.`) }, 422);
    }
  });

  app.post('/webhooks/endpoints', async (c) => {
    const form = await c.req.parseBody({ all: true });
    const text = (name: string) => (typeof form[name] === 'string' ? form[name].trim() : '');
    const events = [form.events ?? []].flat().filter((e): e is string => typeof e === 'string');
    const value = { url: text('url'), events, description: text('description') };
    // "All events" with others ticked means all events.
    const parsed = createWebhookEndpointSchema.safeParse({
      url: value.url,
      enabledEvents: events.includes('*') ? ['*'] : events,
      ...(value.description ? { description: value.description } : {}),
    });
    if (!parsed.success)
      return respond(
        c,
        {
          form: 'endpoints',
          value,
          error: parsed.error.issues.map((i) => `${i.path[0] === 'enabledEvents' ? 'Events' : 'The URL or description'}: ${i.message}.`),
        },
        422,
      );
    try {
      const created = await createWebhookEndpoint(db, config.keyring, c.get('merchant')!, parsed.data, config.webhooks);
      await audit(c, me(c), {
        action: 'webhook_endpoint.create',
        target: `webhook_endpoint:${created.id}`,
        after: { url: created.url, enabledEvents: created.enabledEvents, description: created.description },
      });
      return await respond(c, { form: 'endpoints', added: { url: created.url, secret: created.secret } });
    } catch (err) {
      if (err instanceof WebhookUrlRejectedError) return respond(c, { form: 'endpoints', value, error: err.merchantProblems.map((p) => `The URL ${p}.`) }, 422);
      if (err instanceof WebhookEndpointRefusedError || err instanceof EndpointDisabledByOperatorError)
        return respond(c, { form: 'endpoints', value, error: [err.message] }, 409);
      throw err;
    }
  });

  app.post('/webhooks/endpoints/:id/delete', async (c) => {
    try {
      const id = c.req.param('id');
      if (!UUID.test(id)) throw new WebhookEndpointNotFoundError(id);
      await deleteWebhookEndpoint(db, me(c), id);
      await audit(c, me(c), { action: 'webhook_endpoint.delete', target: `webhook_endpoint:${id}` });
      return await respond(c, { form: 'endpoints', deleted: true });
    } catch (err) {
      if (err instanceof WebhookEndpointNotFoundError) return respond(c, { form: 'endpoints', error: ['No such endpoint among yours.'] }, 404);
      if (err instanceof WebhookEndpointRefusedError || err instanceof EndpointDisabledByOperatorError)
        return respond(c, { form: 'endpoints', error: [err.message] }, 409);
      throw err;
    }
  });

  app.post('/webhooks/test', async (c) => {
    const refused = await maySendTestEvent(me(c));
    if (refused) return respond(c, { form: 'test', error: refused.message }, refusedWith(c, refused));
    const result = await sendTestWebhook(db, config, me(c));
    await audit(c, me(c), { action: 'webhook_endpoint.test', target: 'webhook_endpoint:first' });
    return respond(c, { form: 'test', result });
  });

  app.post('/webhooks/rotate-secret', async (c) => {
    const rotated = await rotateWebhookSecret(db, config.keyring, me(c), config.webhooks.secretOverlapMs);
    await audit(c, me(c), {
      action: 'webhook_secret.rotate',
      target: `webhook_endpoint:${rotated.endpointId}`,
      after: { previousSecretsExpireAt: rotated.previousSecretsExpireAt },
    });
    return respond(c, { form: 'secret', secret: rotated.webhookSecret, previousSecretsExpireAt: rotated.previousSecretsExpireAt });
  });

  app.post('/webhooks/domains', async (c) => {
    const value = await field(c, 'domains');
    const domains = value
      .split(/[\s,]+/)
      .map((d) => d.trim())
      .filter(Boolean);
    try {
      const before = (await getMerchant(db, me(c))).domains;
      const merchant = await setMerchantDomains(db, me(c), domains);
      await audit(c, me(c), { action: 'settings.update', target: 'merchant:domains', before: { domains: before }, after: { domains: merchant.domains } });
      await checkDomains(merchant);
      return await respond(c, { form: 'domains', saved: true });
    } catch (err) {
      if (!(err instanceof DomainsRejectedError)) throw err;
      return respond(c, { form: 'domains', value, error: err.problems.map((p) => (p.index === undefined ? `The list ${p.message}.` : `${p.message}.`)) }, 422);
    }
  });

  /**
   * A production merchant's domains checked by the worker now (core/merchants/domain-verification.ts).
   * One that cannot be had in time (Temporal down, a slow host) leaves them as they were.
   */
  const checkDomains = (merchant: { platformUuid: string; environment: 'sandbox' | 'production' }) =>
    verifyDomainsNow(temporal.client, config, merchant, DOMAIN_CHECK_WAIT_MS).catch((err: unknown) =>
      deps.logger.warn({ platformUuid: merchant.platformUuid, err }, 'domain verification could not be had now'),
    );

  app.post('/webhooks/domains/verify', async (c) => {
    await checkDomains(await getMerchant(db, me(c)));
    return respond(c, { form: 'domains', checked: true });
  });

  app.post('/webhooks/brand', async (c) => {
    const value = (await field(c, 'brandColour')).trim();
    try {
      const before = (await getMerchant(db, me(c))).brandColour;
      const after = (await setMerchantBrandColour(db, me(c), value === '' ? null : value)).brandColour;
      await audit(c, me(c), { action: 'settings.update', target: 'merchant:brandColour', before: { brandColour: before }, after: { brandColour: after } });
      return await respond(c, { form: 'brand', saved: true });
    } catch (err) {
      if (!(err instanceof BrandColourRejectedError)) throw err;
      return respond(c, { form: 'brand', value, error: 'Enter a hex colour such as #1557b0 (or #15b), or leave it empty.' }, 422);
    }
  });

  app.post('/webhooks/saved-cards', async (c) => {
    const before = (await getMerchant(db, me(c))).savedCardsAllowed;
    const after = (await setMerchantSavedCards(db, me(c), (await field(c, 'savedCardsAllowed')) === 'true')).savedCardsAllowed;
    await audit(c, me(c), {
      action: 'settings.update',
      target: 'merchant:savedCardsAllowed',
      before: { savedCardsAllowed: before },
      after: { savedCardsAllowed: after },
    });
    return respond(c, { form: 'savedCards', saved: true });
  });

  /** The same replay as the operators', for one of this merchant's own events only, and limited as the API's (replayEvent). */
  app.post('/events/:eventId/replay', async (c) => {
    const eventId = c.req.param('eventId');
    try {
      const replayed = await replayEvent(replays, eventId, { platformUuid: me(c) });
      await audit(c, me(c), { action: 'event.replay', target: `event:${eventId}` });
      return await respond(c, { form: 'replay', eventId: replayed.eventId, said: replayed.deliveries.map((d) => d.message) });
    } catch (err) {
      const refused = manualSendRefusal(err);
      if (refused) return respond(c, { form: 'replay', eventId, error: refused.message }, refusedWith(c, refused));
      if (!(err instanceof WebhookEventNotFoundError)) throw err;
      return respond(c, { form: 'replay', eventId, error: 'No such event among yours.' }, 404);
    }
  });

  return app;
}
