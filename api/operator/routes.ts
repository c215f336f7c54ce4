import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { revokeApiKey, rotateApiKey, setRequireApiKey } from '../../core/merchants/api-keys.js';
import {
  BrandColourRejectedError,
  activateMerchant,
  deactivateMerchant,
  DomainsRejectedError,
  getMerchant,
  listMerchants,
  MerchantNotFoundError,
  type MerchantSummary,
  setMerchantBrandColour,
  setMerchantDomains,
  setMerchantSavedCards,
} from '../../core/merchants/merchants.js';
import { contactKeysOf, removeSavedCards } from '../../core/checkout/saved-cards.js';
import { startSavedCardRemoval } from '../../workflows/saved-card-removal/client.js';
import { registerMerchant } from '../../core/onboarding/registration.js';
import { verifyDomainsNow } from '../../workflows/domain-verification/client.js';
import {
  changeWebhookUrl,
  disableWebhookEndpoint,
  listEndpointDeliveries,
  listWebhookEndpoints,
  OPERATOR_DISABLED_REASON,
  reenableWebhookEndpoint,
  WebhookEndpointNotFoundError,
  WebhookUrlRejectedError,
} from '../../core/webhooks/endpoints.js';
import { rotateWebhookSecret } from '../../core/webhooks/secrets.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';
import { listCartDeliveries } from '../../core/webhooks/event-history.js';
import { DELIVERY_STATUSES } from '../../core/webhooks/events.js';
import { recoverEndpoint } from '../../core/webhooks/recovery.js';
import {
  EventNotSubscribedError,
  replayDeps,
  replayEvent,
  WebhookEndpointUnknownError,
  WebhookEventNotFoundError,
  type ReplaySender,
} from '../../core/webhooks/replay.js';
import { boundedDeliveryRequests, deliveryRequests } from '../../workflows/webhook-delivery/client.js';
import { merchantNameSchema } from '../../core/merchants/merchant-schema.js';
import { ApiError, validationError } from '../../application/errors.js';
import { readValidJson } from '../json-body.js';
import { eventNotSubscribed } from '../merchant/event-routes.js';
import { bootstrapOperatorToken, operatorActor, operatorAuth } from './auth.js';
import { findTokenOperator } from '../../core/people/operator-tokens.js';
import { operatorAttempts } from '../../core/operator-attempts.js';
import { auditRequest, type AuditedDecision } from '../audit-entry.js';

const TEMPORAL_DEADLINE_MS = 5_000;

const environment = z.enum(['sandbox', 'production']);
const domainList = z.array(z.string().max(253));
const createMerchantBody = z.strictObject({
  name: merchantNameSchema,
  webhookUrl: z.string().max(2048),
  environment: environment.optional(),
  domains: domainList.optional(),
});
const domainsBody = z.strictObject({ domains: domainList });
const settingsBody = z.strictObject({ requireApiKeyForCarts: z.boolean() });
const brandBody = z.strictObject({
  brandColour: z
    .string()
    .max(16)
    .nullable()
    .meta({ description: 'A hex colour such as #1a73e8 (or null for the page’s own colours); one too light to read is darkened on the page' }),
});
const savedCardsBody = z.strictObject({ savedCardsAllowed: z.boolean() });
const eraseSavedCardsBody = z.strictObject({
  contact: z.string().trim().min(1).max(254).meta({ description: 'The email address or phone number (E.164) whose saved cards are erased' }),
});
const webhookUrlBody = z.strictObject({ webhookUrl: z.string().max(2048) });
const recoverBody = z.strictObject({ since: z.iso.datetime({ offset: true }), endpointId: z.uuid().optional() });
const endpointBody = z.strictObject({ endpointId: z.uuid().optional() });
const deliveriesQuery = z.strictObject({
  since: z.iso.datetime({ offset: true }).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** Turns the domain's "not found" and "bad URL" into the API's envelope; anything else goes on to the app's onError. */
function translate(err: unknown): never {
  if (err instanceof MerchantNotFoundError) throw new ApiError('NOT_FOUND', `No merchant has platformUuid ${err.platformUuid}.`);
  if (err instanceof WebhookEventNotFoundError) throw new ApiError('NOT_FOUND', `No webhook event has id ${err.eventId}.`);
  if (err instanceof WebhookEndpointNotFoundError || err instanceof WebhookEndpointUnknownError)
    throw new ApiError('NOT_FOUND', `No webhook endpoint of this merchant has id ${err.endpointId}.`, [
      { path: 'endpointId', message: 'is not one of this merchant’s endpoints (list them with GET /operator/merchants/{platformUuid}/webhook-endpoints)' },
    ]);
  // An operator's replay honours the endpoint's event filter as the merchant's does.
  if (err instanceof EventNotSubscribedError) throw eventNotSubscribed(err);
  if (err instanceof WebhookUrlRejectedError)
    throw new ApiError(
      'VALIDATION_ERROR',
      'The webhook URL cannot be used.',
      err.problems.map((message) => ({ path: 'webhookUrl', message })),
    );
  if (err instanceof BrandColourRejectedError)
    throw new ApiError('VALIDATION_ERROR', 'The brand colour must be a hex colour.', [
      { path: 'brandColour', message: 'must be a hex colour such as "#1a73e8" (or "#18e"), or null to use the page’s own colours' },
    ]);
  if (err instanceof DomainsRejectedError)
    throw new ApiError(
      'VALIDATION_ERROR',
      'Each domain must be a plain host name such as shop.example (it also allows its subdomains).',
      err.problems.map((p) => ({ path: p.index === undefined ? 'domains' : `domains[${p.index}]`, message: p.message })),
    );
  throw err;
}

/**
 * `/operator/…`: what an operator does for a merchant — register, set its domains, change the webhook
 * URL, rotate the secret, rotate or revoke the API key, require it on create-cart, deactivate and activate, disable and enable its endpoint — and how deliveries are inspected, replayed and recovered. Bearer OPERATOR_TOKEN.
 */
export function operatorRoutes(deps: { config: Config; db: Db; temporal: Temporal } & ReplaySender) {
  const { config, db, temporal } = deps;
  const delivery = { db, config, requestDelivery: deliveryRequests(temporal.client, config) };
  const replays = replayDeps({ ...deps, requestDelivery: boundedDeliveryRequests(temporal, config, TEMPORAL_DEADLINE_MS) });
  const uuid = (c: Context) => {
    const value = c.req.param('platformUuid') ?? '';
    if (!z.uuid().safeParse(value).success) throw new ApiError('NOT_FOUND', `No merchant has platformUuid ${value}.`);
    return value;
  };
  /** `{"endpointId"}` names one endpoint of the merchant; no body (as before several endpoints), its first. */
  const optionalEndpoint = async (c: Context) => (c.req.header('content-type') === undefined ? {} : await readValidJson(c, endpointBody));
  /**
   * A production merchant's domains checked now by the worker (core/merchants/domain-verification.ts),
   * then its summary with each domain's status and token. A check that cannot be had (Temporal down, a
   * slow host) leaves them as they were: the daily re-check and the next request try again.
   */
  const checkedDomains = async (platformUuid: string) => {
    const merchant = await getMerchant(db, platformUuid);
    // Its checkedAt stays as it was: what the summary shows of a check that did not happen.
    await verifyDomainsNow(temporal.client, config, merchant).catch(() => undefined);
    return getMerchant(db, platformUuid);
  };
  /** The operator's decision in the audit log (as the operator whose personal token it is, or the bootstrap token), its id in Audit-Entry-Id. */
  const audit = (c: Context, merchantId: string | null, decision: AuditedDecision) => auditRequest(c, deps, operatorActor(c), merchantId, decision);
  /** A setting's change for the audit log: the value before, read first, and the value the answer holds after. */
  const settingChange = async <K extends 'requireApiKeyForCarts' | 'brandColour' | 'savedCardsAllowed' | 'domains'>(
    c: Context,
    platformUuid: string,
    field: K,
    change: () => Promise<MerchantSummary>,
  ) => {
    const before = (await getMerchant(db, platformUuid).catch(translate))[field];
    const after = await change();
    await audit(c, platformUuid, { action: 'settings.update', target: `merchant:${field}`, before: { [field]: before }, after: { [field]: after[field] } });
    return after;
  };
  const app = new Hono();
  app.use(operatorAuth(bootstrapOperatorToken(config), { attempts: operatorAttempts(config, db), personalTokens: (token) => findTokenOperator(db, token) }));

  app.post('/merchants', async (c) => {
    const body = await readValidJson(c, createMerchantBody);
    const created = await registerMerchant(
      db,
      config.keyring,
      {
        name: body.name,
        webhookUrl: body.webhookUrl,
        environment: body.environment ?? config.environment,
        ...(body.domains ? { domains: body.domains } : {}),
      },
      config.webhooks,
    ).catch(translate);
    await audit(c, created.platformUuid, { action: 'merchant.register', target: `merchant:${created.platformUuid}`, after: { name: body.name } });
    // Checked at registration: the tokens to publish, and any the merchant had published already.
    return c.json({ ...created, domainVerification: (await checkedDomains(created.platformUuid)).domainVerification }, 201);
  });

  app.get('/merchants', async (c) => {
    const env = environment.optional().safeParse(c.req.query('environment'));
    if (!env.success) throw validationError(env.error, ['environment']);
    return c.json({ merchants: await listMerchants(db, env.data) });
  });

  app.put('/merchants/:platformUuid/webhook-url', async (c) => {
    const body = await readValidJson(c, webhookUrlBody);
    const platformUuid = uuid(c);
    const before = (await getMerchant(db, platformUuid).catch(translate)).webhookUrl;
    const changed = await changeWebhookUrl(db, platformUuid, body.webhookUrl, 'operator', config.webhooks).catch(translate);
    await audit(c, platformUuid, {
      action: 'webhook_endpoint.update',
      target: 'webhook_endpoint:first',
      before: { url: before },
      after: { url: body.webhookUrl },
    });
    return c.json(changed);
  });

  app.put('/merchants/:platformUuid/domains', async (c) => {
    const body = await readValidJson(c, domainsBody);
    const platformUuid = uuid(c);
    await settingChange(c, platformUuid, 'domains', () => setMerchantDomains(db, platformUuid, body.domains).catch(translate));
    return c.json(await checkedDomains(platformUuid));
  });

  /** Checks the merchant's domains again now, once it has published their tokens (production; sandbox does not check). */
  app.post('/merchants/:platformUuid/domains/verify', async (c) => {
    const platformUuid = uuid(c);
    await getMerchant(db, platformUuid).catch(translate);
    return c.json(await checkedDomains(platformUuid));
  });

  app.post('/merchants/:platformUuid/rotate-secret', async (c) => {
    const body = await optionalEndpoint(c);
    const rotated = await rotateWebhookSecret(db, config.keyring, uuid(c), config.webhooks.secretOverlapMs, body.endpointId).catch(translate);
    await audit(c, rotated.platformUuid, {
      action: 'webhook_secret.rotate',
      target: `webhook_endpoint:${rotated.endpointId}`,
      after: { previousSecretsExpireAt: rotated.previousSecretsExpireAt },
    });
    return c.json(rotated);
  });

  app.get('/merchants/:platformUuid/webhook-endpoints', async (c) => {
    const platformUuid = uuid(c);
    await getMerchant(db, platformUuid).catch(translate);
    return c.json({ data: await listWebhookEndpoints(db, platformUuid) });
  });

  app.post('/merchants/:platformUuid/rotate-api-key', async (c) => {
    const { keyId, ...rotated } = await rotateApiKey(db, uuid(c)).catch(translate);
    await audit(c, rotated.platformUuid, { action: 'api_key.revoke', target: 'api_key:all' });
    await audit(c, rotated.platformUuid, { action: 'api_key.create', target: `api_key:${keyId}`, after: { name: 'Default', scope: 'full' } });
    return c.json(rotated);
  });

  app.post('/merchants/:platformUuid/revoke-api-key', async (c) => {
    const revoked = await revokeApiKey(db, uuid(c)).catch(translate);
    await audit(c, revoked.platformUuid, { action: 'api_key.revoke', target: 'api_key:all' });
    return c.json(revoked);
  });

  app.put('/merchants/:platformUuid/settings', async (c) => {
    const body = await readValidJson(c, settingsBody);
    const platformUuid = uuid(c);
    return c.json(
      await settingChange(c, platformUuid, 'requireApiKeyForCarts', () => setRequireApiKey(db, platformUuid, body.requireApiKeyForCarts).catch(translate)),
    );
  });

  app.put('/merchants/:platformUuid/brand', async (c) => {
    const body = await readValidJson(c, brandBody);
    const platformUuid = uuid(c);
    return c.json(await settingChange(c, platformUuid, 'brandColour', () => setMerchantBrandColour(db, platformUuid, body.brandColour).catch(translate)));
  });

  app.put('/merchants/:platformUuid/saved-cards', async (c) => {
    const body = await readValidJson(c, savedCardsBody);
    const platformUuid = uuid(c);
    return c.json(
      await settingChange(c, platformUuid, 'savedCardsAllowed', () => setMerchantSavedCards(db, platformUuid, body.savedCardsAllowed).catch(translate)),
    );
  });

  /**
   * A data-subject request: everything saved for this contact is erased (docs/saved-cards.md). Its
   * cards are offered nowhere from now on; the removal run, started now, detaches each at the
   * processor and deletes its row. The contact is read as the page reads it and never logged.
   */
  app.post('/saved-cards/erase', async (c) => {
    const body = await readValidJson(c, eraseSavedCardsBody);
    const contactKeys = contactKeysOf(config.keyring, body.contact);
    if (!contactKeys)
      throw new ApiError('VALIDATION_ERROR', 'The contact must be an email address or a phone number.', [
        { path: 'contact', message: 'must be an email address or a phone number with its country code' },
      ]);
    const removed = await removeSavedCards(db, contactKeys);
    // Never the contact: what was done and how much.
    await audit(c, null, { action: 'saved_cards.erase', target: null, after: { removed } });
    // Not started now: the next scheduled run detaches them, and none is offered meanwhile.
    const notStarted = await startSavedCardRemoval(temporal.client, config);
    return c.json({ removed, detaching: notStarted === undefined ? 'now' : 'next_scheduled_run' });
  });

  app.post('/merchants/:platformUuid/deactivate', async (c) => {
    const merchant = await deactivateMerchant(db, uuid(c)).catch(translate);
    await audit(c, merchant.platformUuid, { action: 'merchant.deactivate', target: `merchant:${merchant.platformUuid}` });
    return c.json(merchant);
  });

  app.post('/merchants/:platformUuid/activate', async (c) => {
    const merchant = await activateMerchant(db, uuid(c)).catch(translate);
    await audit(c, merchant.platformUuid, { action: 'merchant.activate', target: `merchant:${merchant.platformUuid}` });
    return c.json(merchant);
  });

  app.post('/merchants/:platformUuid/disable-endpoint', async (c) => {
    const body = await optionalEndpoint(c);
    const platformUuid = uuid(c);
    const merchant = await disableWebhookEndpoint(db, platformUuid, OPERATOR_DISABLED_REASON, body.endpointId).catch(translate);
    await audit(c, platformUuid, { action: 'webhook_endpoint.disable', target: `webhook_endpoint:${body.endpointId ?? 'first'}` });
    return c.json(merchant);
  });

  app.post('/merchants/:platformUuid/enable-endpoint', async (c) => {
    const platformUuid = uuid(c);
    const body = await optionalEndpoint(c);
    const endpointId = await reenableWebhookEndpoint(db, platformUuid, body.endpointId).catch(translate);
    await audit(c, platformUuid, { action: 'webhook_endpoint.enable', target: `webhook_endpoint:${endpointId}` });
    return c.json(await getMerchant(db, platformUuid));
  });

  app.get('/merchants/:platformUuid/deliveries', async (c) => {
    const query = deliveriesQuery.safeParse(c.req.query());
    if (!query.success) throw validationError(query.error);
    const { since, ...rest } = query.data;
    return c.json({ events: await listEndpointDeliveries(db, uuid(c), { ...rest, ...(since ? { since: new Date(since) } : {}) }).catch(translate) });
  });

  app.post('/merchants/:platformUuid/recover', async (c) => {
    const body = await readValidJson(c, recoverBody);
    const platformUuid = uuid(c);
    const recovered = await withDeadline(temporal, TEMPORAL_DEADLINE_MS, () =>
      recoverEndpoint(delivery, platformUuid, new Date(body.since), body.endpointId),
    ).catch(translate);
    await audit(c, platformUuid, {
      action: 'webhook_endpoint.recover',
      target: `webhook_endpoint:${body.endpointId ?? 'first'}`,
      after: { since: body.since },
    });
    return c.json(recovered, 202);
  });

  app.get('/carts/:cartId/deliveries', async (c) => c.json({ events: await listCartDeliveries(db, c.req.param('cartId')) }));

  app.post('/events/:eventId/replay', async (c) => {
    const eventId = c.req.param('eventId');
    const body = await optionalEndpoint(c);
    // Sent at once or queued, as the merchant's replay (core/webhooks/replay.ts), without its limit.
    const replayed = await replayEvent(replays, eventId, body).catch(translate);
    await audit(c, null, { action: 'event.replay', target: `event:${eventId}`, after: { endpointId: body.endpointId ?? null } });
    return c.json(replayed, 200);
  });

  return app;
}
