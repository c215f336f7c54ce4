import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../core/config.js';
import { createDb, type Db } from '../core/db/client.js';
import {
  activeApiKeyId,
  API_KEY_SCOPES,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  revokeApiKeyById,
  rotateApiKey,
  setRequireApiKey,
  type ApiKeyScope,
} from '../core/merchants/api-keys.js';
import { recordAudit, type AuditDecision } from '../core/audit/audit-log.js';
import {
  activateMerchant,
  deactivateMerchant,
  getMerchant,
  listMerchants,
  setMerchantBrandColour,
  setMerchantDomains,
  setMerchantSavedCards,
} from '../core/merchants/merchants.js';
import { contactKeysOf, removeSavedCards } from '../core/checkout/saved-cards.js';
import { startSavedCardRemoval } from '../workflows/saved-card-removal/client.js';
import { registerMerchant } from '../core/onboarding/registration.js';
import { merchantNameSchema } from '../core/merchants/merchant-schema.js';
import { verifyDomainsNow } from '../workflows/domain-verification/client.js';
import {
  changeWebhookUrl,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  listEndpointDeliveries,
  listWebhookEndpoints,
  OPERATOR_DISABLED_REASON,
  reenableWebhookEndpoint,
  updateWebhookEndpoint,
} from '../core/webhooks/endpoints.js';
import type { z } from 'zod';
import { ALL_EVENTS, enabledEventsSchema } from '../core/webhooks/endpoint-schema.js';
import type { RequestDelivery } from '../core/webhooks/delivery.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../core/webhooks/events.js';
import { rotateWebhookSecret } from '../core/webhooks/secrets.js';
import { checkMerchantReadiness, type MerchantReadiness } from '../core/onboarding/readiness.js';
import { connectTemporal, withDeadline } from '../core/temporal/connection.js';
import { listCartDeliveries } from '../core/webhooks/event-history.js';
import { dashboardSignInLinks } from '../web/dashboard/sign-in-link.js';
import { invite } from '../core/people/people.js';
import { readDashboardMail } from '../core/people/mail/outbox.js';
import { isMerchantRole, isOperatorRole, isRole, MERCHANT_ROLES, OPERATOR_ROLES } from '../core/people/roles.js';
import { recoverEndpoint } from '../core/webhooks/recovery.js';
import { replayDeps, replayEvent } from '../core/webhooks/replay.js';
import { createDeliveryMetrics } from '../core/webhooks/delivery-metrics.js';
import { createLogger } from '../core/logger.js';
import pino from 'pino';
import { Registry } from 'prom-client';
import { deliveryRequests } from '../workflows/webhook-delivery/client.js';

const HELP = `Operator CLI for merchants and their webhooks. Every command prints one JSON object.

  npm run -s merchant -- create --name <name> --webhook-url <url> [--environment sandbox|production] [--domain <host> …]
      Registers a merchant. Prints platformUuid, webhookSecret and apiKey (each shown once; store them now).
  npm run -s merchant -- set-domains --platform-uuid <uuid> --domain <host> [--domain <host> …]
      Replaces the domains its store URL, logo and return URLs may use; shop.example also allows
      its subdomains. A production merchant takes no cart until it has at least one, and takes
      carts only on domains it has verified: the answer's domainVerification gives each domain's
      token to publish at https://<domain>/.well-known/hosted-checkout-verification (or in a DNS
      TXT record _hosted-checkout.<domain>: hosted-checkout-verification=<token>); checked now.
  npm run -s merchant -- verify-domains --platform-uuid <uuid>
      Checks a production merchant's domains now, once it has published their tokens (the worker
      also re-checks them daily). Prints its summary with each domain's status.
  npm run -s merchant -- list [--environment sandbox|production]
  npm run -s merchant -- set-webhook-url --platform-uuid <uuid> --webhook-url <url>
      The URL of its first endpoint. Also re-enables it when disabled.
  npm run -s merchant -- endpoints --platform-uuid <uuid>
      Its webhook endpoints (at most 16), oldest first: id, URL, enabledEvents, description, status.
  npm run -s merchant -- add-endpoint --platform-uuid <uuid> --url <url> [--event <name> …] [--description <text>]
      A new endpoint for the events named (every event without --event); prints its secret, once.
  npm run -s merchant -- update-endpoint --platform-uuid <uuid> --endpoint-id <id> [--url <url>] [--event <name> …] [--description <text>]
  npm run -s merchant -- delete-endpoint --platform-uuid <uuid> --endpoint-id <id>
      Nothing more is sent to it; a merchant keeps at least one endpoint.
  npm run -s merchant -- rotate-secret --platform-uuid <uuid> [--endpoint-id <id>]
      Prints the new secret; the previous ones keep signing for WEBHOOK_SECRET_OVERLAP_SECONDS (24 h).
      Without --endpoint-id, of its first endpoint (the same holds for disable-endpoint,
      enable-endpoint and recover).
  npm run -s merchant -- rotate-api-key --platform-uuid <uuid>
      Prints a new full API key named Default (shown once); every previous key of the merchant stops
      working at once. Also issues a key to a merchant that has none.
  npm run -s merchant -- revoke-api-key --platform-uuid <uuid> [--key-id <id>]
      With --key-id, that one key stops working now and the merchant's others keep working.
      Without, every key of the merchant stops working now; it has none until rotate-api-key.
  npm run -s merchant -- create-api-key --platform-uuid <uuid> --name <name> --scope full|carts|read
      A new key beside the merchant's others, shown once. full: everything; carts: create carts
      only; read: read orders and events only.
  npm run -s merchant -- api-keys --platform-uuid <uuid>
      Its active keys: id, name, scope, prefix, created and last used (to the minute).
  npm run -s merchant -- set-require-api-key --platform-uuid <uuid> (--on | --off)
      On: create-cart for this merchant needs Authorization: Bearer <its API key>. Off by default.
  npm run -s merchant -- set-brand-colour --platform-uuid <uuid> (--colour '#rrggbb' | --off)
      The checkout page's buttons, links and focus ring take this colour, darkened when too light to
      read (WCAG 2.2 AA); prints the colours the page will use and why. --off: the page's own colours.
  npm run -s merchant -- set-saved-cards --platform-uuid <uuid> (--on | --off)
      On (the default): after the one-time code, the checkout offers the customer's saved cards and
      the consent to save one (docs/saved-cards.md). Off: neither.
  npm run -s merchant -- erase-saved-cards --contact <email or +phone>
      A data-subject request: every card saved for this contact is offered nowhere from now on, then
      detached at the processor and deleted by the removal run (started now). Prints how many.
  npm run -s merchant -- deactivate --platform-uuid <uuid>
      No new carts; events of existing carts are still delivered.
  npm run -s merchant -- activate --platform-uuid <uuid>
  npm run -s merchant -- disable-endpoint --platform-uuid <uuid> [--endpoint-id <id>]
      No webhook is sent to it; its events are kept as skipped (replay or recover them later).
  npm run -s merchant -- enable-endpoint --platform-uuid <uuid> [--endpoint-id <id>]
  npm run -s merchant -- dashboard-link --platform-uuid <uuid>
      Prints a link that signs the merchant in to the dashboard: ten minutes, through its current
      API key (rotating or revoking the key kills it). Send it to the merchant over a channel you trust.
  npm run -s merchant -- invite --platform-uuid <uuid> --email <email> [--role owner|developer|support|analyst]
      Invites someone to the merchant's dashboard (owner unless told): prints a link that works once,
      for 48 hours, accepted by creating a passkey. How the first owner is made; then owners invite.
  npm run -s merchant -- invite-operator --email <email> [--role operator_admin|operator]
      Invites an operator (operator_admin unless told), the same way: how the first operator is made.
  npm run -s merchant -- dashboard-mail --email <email>
      Sandbox: what the dashboard "emailed" to this address (sign-in codes, invitation links), newest
      first, read from the sandbox outbox instead of a mailbox.
  npm run -s merchant -- deliveries (--cart-id <id> | --platform-uuid <uuid> [--since <ISO time>] [--status failed|skipped|delivered|pending|unsubscribed])
      Events with every delivery attempt (status, latency, error, response excerpt).
  npm run -s merchant -- replay --event-id <evt_…> [--endpoint-id <id>]
      Sends one event again: same id and body, fresh timestamp and signature; to that endpoint, or to
      every endpoint it was recorded for.
  npm run -s merchant -- recover --platform-uuid <uuid> --since <ISO time> [--endpoint-id <id>]
      Re-enables the endpoint and sends again every failed or skipped event since that time.
  npm run -s merchant -- check --platform-uuid <uuid>
      What the merchant still lacks to take payments here: active, registered on this deployment's
      environment, domains set (production), a webhook secret, an API key, and an endpoint answering
      2xx to a signed test event (sent now). Exits 1 and lists them in "missing" when any is lacking.
      "warnings" lists what does not block payments but should change: publicCarts, a production
      merchant that takes carts without its API key (anyone who knows its platformUuid can make them).

Connection: DATABASE_URL, DATA_ENCRYPTION_KEY and TEMPORAL_ADDRESS from the environment; when unset,
those of the stack \`npm start\` runs (.data/stack.json, .data/local-secrets.json).`;

class UsageError extends Error {}

const DATA_DIR = fileURLToPath(new URL('../.data/', import.meta.url));
const readJson = (file: string): Record<string, string> =>
  existsSync(DATA_DIR + file) ? (JSON.parse(readFileSync(DATA_DIR + file, 'utf8')) as Record<string, string>) : {};

function cliConfig(env: NodeJS.ProcessEnv): Config {
  const stack = readJson('stack.json');
  const secrets = readJson('local-secrets.json');
  return loadConfig({
    ...env,
    // The stack npm start ran is sandbox; pointed elsewhere, the CLI takes CHECKOUT_ENV as given.
    CHECKOUT_ENV: env.CHECKOUT_ENV ?? (env.DATABASE_URL ? undefined : 'sandbox'),
    // And it sends webhooks to its demo store on localhost, as the URLs given here may (scripts/start.ts).
    WEBHOOK_ALLOW_LOOPBACK: env.WEBHOOK_ALLOW_LOOPBACK ?? (env.DATABASE_URL || (env.CHECKOUT_ENV ?? 'sandbox') !== 'sandbox' ? undefined : 'true'),
    DATABASE_URL: env.DATABASE_URL ?? stack.databaseUrl,
    ...(env.DATA_ENCRYPTION_KEYS ? {} : { DATA_ENCRYPTION_KEY: env.DATA_ENCRYPTION_KEY ?? secrets.dataEncryptionKey }),
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS ?? stack.temporalAddress,
    // Where dashboard-link points: the page's public address.
    CHECKOUT_BASE_URL: env.CHECKOUT_BASE_URL ?? stack.checkoutUrl,
  });
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function isoTime(value: string, name: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 time`);
  return at;
}

/** --name as the operator API takes it (the checkout page shows it: core/display-text.ts). */
function merchantName(value: string): string {
  const parsed = merchantNameSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`--name ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
  return parsed.data;
}

/** The --event values as enabledEvents: every event without any. */
function enabledEvents(values: Values): z.output<typeof enabledEventsSchema> | undefined {
  if (!values.event?.length) return undefined;
  const parsed = enabledEventsSchema.safeParse(values.event);
  if (!parsed.success) throw new UsageError(`--event ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
  return parsed.data;
}

function environmentOf(value: string | undefined, config: Config) {
  if (value === undefined) return config.environment;
  if (value !== 'sandbox' && value !== 'production') throw new UsageError('--environment must be sandbox or production');
  return value;
}

type Values = Record<string, string | undefined> & { domain?: string[]; event?: string[]; on?: boolean; off?: boolean };

async function run(command: string | undefined, values: Values, config: Config, db: Db): Promise<unknown> {
  const withTemporal = async <T>(
    fn: (deps: { db: Db; client: ReturnType<typeof connectTemporal>['client']; config: Config; requestDelivery: RequestDelivery }) => Promise<T>,
  ) => {
    const temporal = connectTemporal(config);
    try {
      return await withDeadline(temporal, 10_000, () =>
        fn({ db, client: temporal.client, config, requestDelivery: deliveryRequests(temporal.client, config) }),
      );
    } finally {
      await temporal.close();
    }
  };
  /** A production merchant's domains checked by the worker, then its summary (core/merchants/domain-verification.ts). */
  const checkDomains = async (client: ReturnType<typeof connectTemporal>['client'], platformUuid: string) => {
    await verifyDomainsNow(client, config, await getMerchant(db, platformUuid), 8_000);
    return getMerchant(db, platformUuid);
  };
  /** The operator at the shell, in the audit log: no address, no token, the machine's CLI. */
  const audited = (merchantId: string, decision: AuditDecision) =>
    recordAudit(db, { ...decision, actor: { type: 'operator', id: 'cli' }, ip: null, merchantId });
  switch (command) {
    case 'create':
      return registerMerchant(
        db,
        config.keyring,
        {
          name: merchantName(required(values, 'name')),
          webhookUrl: required(values, 'webhook-url'),
          environment: environmentOf(values.environment, config),
          domains: values.domain ?? [],
        },
        config.webhooks,
      );
    case 'list':
      return { merchants: await listMerchants(db, values.environment ? environmentOf(values.environment, config) : undefined) };
    case 'set-domains':
      if (!values.domain?.length) throw new UsageError('--domain is required (repeat it for each domain)');
      await setMerchantDomains(db, required(values, 'platform-uuid'), values.domain);
      return withTemporal((deps) => checkDomains(deps.client, required(values, 'platform-uuid')));
    case 'verify-domains':
      return withTemporal((deps) => checkDomains(deps.client, required(values, 'platform-uuid')));
    case 'set-webhook-url':
      return changeWebhookUrl(db, required(values, 'platform-uuid'), required(values, 'webhook-url'), 'operator', config.webhooks);
    case 'rotate-secret':
      return rotateWebhookSecret(db, config.keyring, required(values, 'platform-uuid'), config.webhooks.secretOverlapMs, values['endpoint-id']);
    case 'endpoints':
      await getMerchant(db, required(values, 'platform-uuid'));
      return { endpoints: await listWebhookEndpoints(db, required(values, 'platform-uuid')) };
    case 'add-endpoint': {
      const merchant = await getMerchant(db, required(values, 'platform-uuid'));
      return createWebhookEndpoint(
        db,
        config.keyring,
        merchant,
        {
          url: required(values, 'url'),
          enabledEvents: enabledEvents(values) ?? [ALL_EVENTS],
          ...(values.description === undefined ? {} : { description: values.description }),
        },
        config.webhooks,
      );
    }
    case 'update-endpoint': {
      const merchant = await getMerchant(db, required(values, 'platform-uuid'));
      const events = enabledEvents(values);
      return updateWebhookEndpoint(
        db,
        merchant,
        required(values, 'endpoint-id'),
        {
          ...(values.url === undefined ? {} : { url: values.url }),
          ...(events ? { enabledEvents: events } : {}),
          ...(values.description === undefined ? {} : { description: values.description }),
        },
        config.webhooks,
      );
    }
    case 'delete-endpoint': {
      const endpointId = required(values, 'endpoint-id');
      await deleteWebhookEndpoint(db, required(values, 'platform-uuid'), endpointId);
      return { deleted: endpointId };
    }
    case 'rotate-api-key': {
      const { keyId, ...rotated } = await rotateApiKey(db, required(values, 'platform-uuid'));
      await audited(rotated.platformUuid, { action: 'api_key.revoke', target: 'api_key:all' });
      await audited(rotated.platformUuid, { action: 'api_key.create', target: `api_key:${keyId}`, after: { name: 'Default', scope: 'full' } });
      return rotated;
    }
    case 'revoke-api-key': {
      const platformUuid = required(values, 'platform-uuid');
      const keyId = values['key-id'];
      if (keyId === undefined) {
        const revoked = await revokeApiKey(db, platformUuid);
        await audited(platformUuid, { action: 'api_key.revoke', target: 'api_key:all' });
        return revoked;
      }
      await getMerchant(db, platformUuid);
      const revoked = await revokeApiKeyById(db, platformUuid, keyId);
      if (!revoked) throw new UsageError(`--key-id ${keyId} is not an active key of merchant ${platformUuid} (list them with api-keys)`);
      await audited(platformUuid, { action: 'api_key.revoke', target: `api_key:${keyId}`, before: { name: revoked.name, scope: revoked.scope } });
      return { platformUuid, keyId, revoked: true };
    }
    case 'create-api-key': {
      const platformUuid = required(values, 'platform-uuid');
      const scope = required(values, 'scope');
      if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) throw new UsageError(`--scope must be one of ${API_KEY_SCOPES.join(', ')}`);
      const { key, apiKey } = await createApiKey(db, platformUuid, { name: required(values, 'name'), scope: scope as ApiKeyScope });
      await audited(platformUuid, { action: 'api_key.create', target: `api_key:${key.id}`, after: { name: key.name, scope: key.scope } });
      return { platformUuid, ...key, apiKey };
    }
    case 'api-keys':
      return { keys: await listApiKeys(db, required(values, 'platform-uuid')) };
    case 'set-require-api-key':
      if (values.on === values.off) throw new UsageError('give exactly one of --on or --off');
      return setRequireApiKey(db, required(values, 'platform-uuid'), values.on === true);
    case 'set-brand-colour':
      if ((values.colour === undefined) === (values.off !== true)) throw new UsageError('give exactly one of --colour or --off');
      return setMerchantBrandColour(db, required(values, 'platform-uuid'), values.colour ?? null);
    case 'set-saved-cards':
      if (values.on === values.off) throw new UsageError('give exactly one of --on or --off');
      return setMerchantSavedCards(db, required(values, 'platform-uuid'), values.on === true);
    case 'erase-saved-cards': {
      const contactKeys = contactKeysOf(config.keyring, required(values, 'contact'));
      if (!contactKeys) throw new UsageError('--contact must be an email address or a phone number with its country code');
      const removed = await removeSavedCards(db, contactKeys);
      const notStarted = await withTemporal(({ client }) => startSavedCardRemoval(client, config)).catch((err: unknown) => err);
      return { removed, detaching: notStarted === undefined ? 'now' : 'next_scheduled_run' };
    }
    case 'deactivate':
      return deactivateMerchant(db, required(values, 'platform-uuid'));
    case 'activate':
      return activateMerchant(db, required(values, 'platform-uuid'));
    case 'disable-endpoint':
      return disableWebhookEndpoint(db, required(values, 'platform-uuid'), OPERATOR_DISABLED_REASON, values['endpoint-id']);
    case 'enable-endpoint': {
      const platformUuid = required(values, 'platform-uuid');
      await reenableWebhookEndpoint(db, platformUuid, values['endpoint-id']);
      return getMerchant(db, platformUuid);
    }
    case 'dashboard-link': {
      const platformUuid = required(values, 'platform-uuid');
      const keyId = await activeApiKeyId(db, platformUuid);
      if (!keyId) throw new Error(`merchant ${platformUuid} has no API key: issue one with rotate-api-key first`);
      return { platformUuid, ...dashboardSignInLinks(config).issue(platformUuid, keyId) };
    }
    case 'invite':
    case 'invite-operator': {
      const team = command === 'invite' ? required(values, 'platform-uuid') : null;
      const email = required(values, 'email').toLowerCase();
      const role = values.role ?? (team ? 'owner' : 'operator_admin');
      if (!isRole(role) || !(team ? isMerchantRole(role) : isOperatorRole(role)))
        throw new UsageError(`--role must be one of ${(team ? MERCHANT_ROLES : OPERATOR_ROLES).join(', ')}`);
      if (team) await getMerchant(db, team);
      // The operator's CLI may re-invite a member, so one who lost every passkey can enrol one again.
      const invited = await invite(db, team, { email, role }, { reenrol: true });
      return { email, role, url: `${config.checkoutBaseUrl}/dashboard/invitations/${invited.token}`, expiresAt: invited.expiresAt.toISOString() };
    }
    case 'dashboard-mail':
      return { mail: await readDashboardMail(db, config.keyring, required(values, 'email')) };
    case 'deliveries': {
      if (values['cart-id']) return { events: await listCartDeliveries(db, values['cart-id']) };
      const status = values.status as DeliveryStatus | undefined;
      if (status && !DELIVERY_STATUSES.includes(status)) throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      return {
        events: await listEndpointDeliveries(db, required(values, 'platform-uuid'), {
          ...(values.since ? { since: isoTime(values.since, 'since') } : {}),
          ...(status ? { status } : {}),
        }),
      };
    }
    case 'replay':
      return withTemporal((deps) =>
        replayEvent(
          // Sent at once from here, counted in a registry nobody scrapes; logged to stderr, so stdout stays the answer.
          replayDeps({
            ...deps,
            logger: createLogger({ level: config.logLevel, name: 'merchant-cli', destination: pino.destination(2) }),
            deliveryMetrics: createDeliveryMetrics(new Registry()),
          }),
          required(values, 'event-id'),
          values['endpoint-id'] === undefined ? {} : { endpointId: values['endpoint-id'] },
        ),
      );
    case 'recover': {
      const since = isoTime(required(values, 'since'), 'since');
      return withTemporal((deps) => recoverEndpoint(deps, required(values, 'platform-uuid'), since, values['endpoint-id']));
    }
    case 'check':
      return checkMerchantReadiness({ db, keyring: config.keyring, config }, required(values, 'platform-uuid'));
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
  }
}

/** Where the CLI prints: the process's own streams, or a test's. */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * The CLI, given its arguments and environment: prints one JSON object and answers the exit code
 * (0; 1 for a failure or a readiness report that found something missing; 2 for a usage error).
 */
export async function runMerchantCli(args: string[], env: NodeJS.ProcessEnv, out: CliOutput): Promise<number> {
  const fail = (code: number, error: string, help = false) => {
    out.stderr(`${JSON.stringify({ error })}\n${help ? `\n${HELP}\n` : ''}`);
    return code;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        'webhook-url': { type: 'string' },
        domain: { type: 'string', multiple: true },
        environment: { type: 'string' },
        'platform-uuid': { type: 'string' },
        colour: { type: 'string' },
        contact: { type: 'string' },
        'cart-id': { type: 'string' },
        'event-id': { type: 'string' },
        'endpoint-id': { type: 'string' },
        'key-id': { type: 'string' },
        scope: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        url: { type: 'string' },
        event: { type: 'string', multiple: true },
        description: { type: 'string' },
        since: { type: 'string' },
        status: { type: 'string' },
        on: { type: 'boolean' },
        off: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    return fail(2, (err as Error).message, true);
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    out.stdout(`${HELP}\n`);
    return 0;
  }
  let db: Db | undefined;
  try {
    const config = cliConfig(env);
    db = createDb(config.databaseUrl, { max: 1 });
    const command = parsed.positionals[0];
    const result = await run(command, parsed.values as Values, config, db);
    out.stdout(`${JSON.stringify(result, null, 2)}\n`);
    // A readiness report that found something missing is a failure for scripts and CI, though it printed normally.
    return command === 'check' && !(result as MerchantReadiness).ready ? 1 : 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(2, err.message, true);
    return fail(1, err instanceof Error ? err.message : String(err));
  } finally {
    await db?.end();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runMerchantCli(process.argv.slice(2), process.env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}
