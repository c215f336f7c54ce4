import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import { listMerchantDeliveries, type EventDeliveries } from './event-history.js';
import { checkWebhookUrl, NO_LOOPBACK, resolveAll, webhookTargets, type LoopbackSetting, type WebhookTargets } from '../outbound/url-safety.js';
import { endpointTarget, parseEndpointTarget, targetAddresses, targetKeys } from './endpoint-target.js';
import {
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  findDeliveryEndpoint,
  insertEndpoint,
  selectEndpoint,
  selectEndpoints,
  selectOperatorDisabledEndpoints,
  updateEndpointSettings,
  type EndpointActor,
  type EndpointRow,
} from '../merchants/merchant-store.js';
import { getMerchant, MerchantNotFoundError, type MerchantSummary } from '../merchants/merchants.js';
import {
  ENDPOINT_LIMITS,
  type CreatedWebhookEndpoint,
  type CreateWebhookEndpoint,
  type UpdateWebhookEndpoint,
  type WebhookEndpoint,
} from './endpoint-schema.js';
import { newWebhookSecret } from './signing.js';

/**
 * A merchant's webhook endpoints: each URL (checked for the merchant's environment), the events it
 * wants, disabled and enabled again, deleted; and its deliveries. Operators' single-URL settings act
 * on the merchant's first endpoint (core/merchants/merchant-store.ts).
 *
 * Each function that takes a URL takes the deployment's `config.webhooks` too (WEBHOOK_ALLOW_LOOPBACK),
 * so that a URL is checked against what its deliveries will be allowed to reach
 * (core/outbound/url-safety.ts webhookTargets). Without it, loopback is refused, as in every deployed
 * environment.
 */

export class WebhookUrlRejectedError extends Error {
  override name = 'WebhookUrlRejectedError';
  constructor(
    /** In full, for operators (their API and CLI) and logs. */
    readonly problems: string[],
    /** What a merchant is shown: never what our resolver answered (core/outbound/url-safety.ts checkWebhookUrl). */
    readonly merchantProblems: string[] = problems,
  ) {
    super(`webhook URL ${problems.join('; ')}`);
  }
}

export class WebhookEndpointNotFoundError extends Error {
  override name = 'WebhookEndpointNotFoundError';
  constructor(readonly endpointId: string) {
    super(`no webhook endpoint of this merchant has id ${endpointId}`);
  }
}

/** Refused: the merchant has ENDPOINT_LIMITS.perMerchant endpoints already, or asked to delete its last one. */
export class WebhookEndpointRefusedError extends Error {
  override name = 'WebhookEndpointRefusedError';
  constructor(readonly reason: 'limit_reached' | 'last_endpoint') {
    super(
      reason === 'limit_reached'
        ? `a merchant has at most ${ENDPOINT_LIMITS.perMerchant} webhook endpoints`
        : 'a merchant keeps at least one webhook endpoint: disable it instead, or add another first',
    );
  }
}

/** What a merchant asked of an endpoint an operator disabled, refused until an operator enables it again. */
export type BoundAction = 'add' | 'move' | 'enable' | 'disable' | 'delete' | 'send';

/**
 * Refused: an operator disabled the endpoint, and that decision binds the merchant until an operator
 * enables it again (reenableWebhookEndpoint). The message is what the API's 409 and the dashboard say.
 */
export class EndpointDisabledByOperatorError extends Error {
  override name = 'EndpointDisabledByOperatorError';
  constructor(
    /** The endpoint the operator disabled. */
    readonly endpointId: string,
    readonly action: BoundAction,
  ) {
    super(
      {
        add: 'An operator disabled your webhook endpoint at this URL: the URL, or another spelling or host name of the same receiver, cannot be added again, as a new endpoint or another one’s URL, until an operator enables that endpoint again. Contact support.',
        move: 'An operator disabled this webhook endpoint: its URL cannot be changed until an operator enables it again. Contact support.',
        enable: 'An operator disabled this webhook endpoint: only an operator enables it again. Contact support.',
        disable: 'An operator disabled this webhook endpoint: it stays disabled for the operator’s reason until an operator enables it again. Contact support.',
        delete: 'An operator disabled this webhook endpoint: it cannot be deleted until an operator enables it again. Contact support.',
        send: 'An operator disabled your endpoint: nothing is sent to it, test events and replays included, until an operator enables it again. Contact support.',
      }[action],
    );
  }
}

/**
 * A URL the merchant asks for, as an operator's disable compares it: its target (endpoint-target.ts)
 * by name and by each address its host resolves to now. Resolved before any transaction, so that a
 * slow resolver holds no row.
 */
interface AskedUrl {
  url: string;
  keys: string[];
}

async function askedUrl(url: string): Promise<AskedUrl> {
  const target = parseEndpointTarget(url);
  return { url, keys: target ? targetKeys(target, await targetAddresses(target, resolveAll)) : [] };
}

/** What an endpoint an operator disabled binds: its target by name, and by the addresses it resolved to then. */
function boundKeys(endpoint: EndpointRow): string[] {
  const target = parseEndpointTarget(endpoint.url);
  return target ? targetKeys(target, endpoint.disabled_addresses ?? []) : [];
}

/** The merchant's endpoint an operator disabled that `asked` would reach again (same target, or an address it was bound by), if any. */
const boundEndpointFor = (asked: AskedUrl, operatorDisabled: readonly EndpointRow[]) =>
  operatorDisabled.find((e) => boundKeys(e).some((key) => asked.keys.includes(key)))?.id;

/**
 * Throws EndpointDisabledByOperatorError when the merchant's change of `endpointId` (to `newUrl`,
 * `status`) would lift an operator's disable: that endpoint's own status or URL, or another
 * endpoint moved onto the target of one an operator disabled.
 */
async function assertNotBound(
  sql: Sql,
  platformUuid: string,
  endpointId: string,
  change: { newUrl?: AskedUrl; status?: 'enabled' | 'disabled' },
): Promise<void> {
  const bound = await selectOperatorDisabledEndpoints(sql, platformUuid);
  const own = bound.find((e) => e.id === endpointId);
  if (own && change.status !== undefined) throw new EndpointDisabledByOperatorError(own.id, change.status === 'enabled' ? 'enable' : 'disable');
  if (change.newUrl === undefined) return;
  if (own && endpointTarget(change.newUrl.url) !== endpointTarget(own.url)) throw new EndpointDisabledByOperatorError(own.id, 'move');
  const other = boundEndpointFor(
    change.newUrl,
    bound.filter((e) => e.id !== endpointId),
  );
  if (other !== undefined) throw new EndpointDisabledByOperatorError(other, 'add');
}

/** Throws WebhookUrlRejectedError unless the URL passes the checks of the merchant's targets (its environment, the deployment's loopback setting). */
export async function assertWebhookUrl(url: string, targets: WebhookTargets): Promise<void> {
  const { problems, merchantProblems } = await checkWebhookUrl(url, targets);
  if (problems.length) throw new WebhookUrlRejectedError(problems, merchantProblems);
}

async function firstEndpointOf(db: Db, platformUuid: string): Promise<string> {
  const endpoint = await findDeliveryEndpoint(db, platformUuid);
  if (!endpoint) throw new MerchantNotFoundError(platformUuid);
  return endpoint.endpointId;
}

/**
 * The merchant's first endpoint's URL, checked for the merchant's environment; a new URL also
 * re-enables the endpoint, except one an operator disabled when the merchant (`by`) saves it: the
 * merchant may save its same URL again, never another (EndpointDisabledByOperatorError), nor the URL
 * of another endpoint an operator disabled.
 */
export async function changeWebhookUrl(
  db: Db,
  platformUuid: string,
  webhookUrl: string,
  by: EndpointActor,
  deployment: LoopbackSetting = NO_LOOPBACK,
): Promise<MerchantSummary> {
  const merchant = await getMerchant(db, platformUuid);
  await assertWebhookUrl(webhookUrl, webhookTargets(merchant.environment, deployment));
  const endpointId = await firstEndpointOf(db, platformUuid);
  if (by === 'merchant') await assertNotBound(db, platformUuid, endpointId, { newUrl: await askedUrl(webhookUrl) });
  if (!(await enableEndpoint(db, endpointId, by, webhookUrl))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** Why an endpoint an operator disabled is disabled, as the merchant's webhook settings show it. */
export const OPERATOR_DISABLED_REASON = 'disabled by an operator';
/** Why an endpoint its merchant disabled is disabled. */
export const MERCHANT_DISABLED_REASON = 'disabled by the merchant';

/**
 * An operator stops deliveries to an endpoint of the merchant (its first without `endpointId`); its
 * events are kept as `skipped`, replayable once it is enabled again. Until an operator enables it, the
 * merchant cannot delete, enable, disable or move it, nor add its URL again, spelt otherwise or by
 * another name of the addresses its host resolves to now (EndpointDisabledByOperatorError).
 */
export async function disableWebhookEndpoint(db: Db, platformUuid: string, reason: string, endpointId?: string): Promise<MerchantSummary> {
  const endpoint = await findDeliveryEndpoint(db, platformUuid, endpointId);
  if (!endpoint || endpoint.deleted)
    throw endpointId && endpoint === undefined ? new WebhookEndpointNotFoundError(endpointId) : new MerchantNotFoundError(platformUuid);
  const target = parseEndpointTarget(endpoint.url);
  await disableEndpoint(db, endpoint.endpointId, reason, { addresses: target ? await targetAddresses(target, resolveAll) : [] });
  return getMerchant(db, platformUuid);
}

/** After an outage on the merchant's side: the endpoint (the first without `endpointId`) takes deliveries again. Returns its id. */
export async function reenableWebhookEndpoint(db: Db, platformUuid: string, endpointId?: string): Promise<string> {
  const id = endpointId ?? (await firstEndpointOf(db, platformUuid));
  if (!(await selectEndpoint(db, platformUuid, id))) throw new WebhookEndpointNotFoundError(id);
  await enableEndpoint(db, id, 'operator');
  return id;
}

/** An operator's view of a merchant's deliveries, newest first; an unknown merchant is an error, not an empty list. */
export async function listEndpointDeliveries(
  db: Db,
  platformUuid: string,
  filter: Parameters<typeof listMerchantDeliveries>[2] = {},
): Promise<EventDeliveries[]> {
  await getMerchant(db, platformUuid);
  return listMerchantDeliveries(db, platformUuid, filter);
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  enabledEvents: r.enabled_events,
  description: r.description,
  status: r.status,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at.toISOString(),
});

/** The merchant's endpoints, oldest first (the first is where the single-URL settings act). */
export async function listWebhookEndpoints(db: Db, platformUuid: string): Promise<WebhookEndpoint[]> {
  return (await selectEndpoints(db, platformUuid)).map(toEndpoint);
}

export async function getWebhookEndpoint(db: Db, platformUuid: string, endpointId: string): Promise<WebhookEndpoint> {
  const row = await selectEndpoint(db, platformUuid, endpointId);
  if (!row) throw new WebhookEndpointNotFoundError(endpointId);
  return toEndpoint(row);
}

/**
 * A new endpoint with its own secret, returned this once; its URL checked for the merchant's
 * environment, and never the target of an endpoint an operator disabled (endpoint-target.ts).
 */
export async function createWebhookEndpoint(
  db: Db,
  keyring: Keyring,
  merchant: { platformUuid: string; environment: Environment },
  input: CreateWebhookEndpoint,
  deployment: LoopbackSetting = NO_LOOPBACK,
): Promise<CreatedWebhookEndpoint> {
  await assertWebhookUrl(input.url, webhookTargets(merchant.environment, deployment));
  const asked = await askedUrl(input.url);
  const secret = newWebhookSecret();
  const created = await insertEndpoint(db, {
    platformUuid: merchant.platformUuid,
    url: input.url,
    enabledEvents: input.enabledEvents,
    description: input.description ?? '',
    sealedSecret: keyring.seal(secret),
    max: ENDPOINT_LIMITS.perMerchant,
    boundBy: (operatorDisabled) => boundEndpointFor(asked, operatorDisabled),
  });
  if (created === undefined) throw new MerchantNotFoundError(merchant.platformUuid);
  if (created === 'limit_reached') throw new WebhookEndpointRefusedError('limit_reached');
  if ('boundBy' in created) throw new EndpointDisabledByOperatorError(created.boundBy, 'add');
  return { ...(await getWebhookEndpoint(db, merchant.platformUuid, created.id)), secret };
}

/**
 * Changes what the merchant asked, each field as it would alone: a new URL (checked) re-enables the
 * endpoint like today's single URL, then `status` disables or enables it. One an operator disabled
 * keeps its status, reason and URL (EndpointDisabledByOperatorError); its events and description
 * are still the merchant's. One transaction: a change naming several fields applies all of them or none.
 */
export async function updateWebhookEndpoint(
  db: Db,
  merchant: { platformUuid: string; environment: Environment },
  endpointId: string,
  change: UpdateWebhookEndpoint,
  deployment: LoopbackSetting = NO_LOOPBACK,
): Promise<WebhookEndpoint> {
  // An id not the merchant's is refused as such, before its URL is resolved.
  await getWebhookEndpoint(db, merchant.platformUuid, endpointId);
  // Checked outside the transaction: the URL's DNS lookups must not hold the endpoint's row.
  if (change.url !== undefined) await assertWebhookUrl(change.url, webhookTargets(merchant.environment, deployment));
  const asked = change.url !== undefined ? await askedUrl(change.url) : undefined;
  await db.begin((tx) => applyEndpointChange(tx, merchant.platformUuid, endpointId, change, asked));
  return getWebhookEndpoint(db, merchant.platformUuid, endpointId);
}

async function applyEndpointChange(tx: Sql, platformUuid: string, endpointId: string, change: UpdateWebhookEndpoint, asked?: AskedUrl): Promise<void> {
  const settings = {
    ...(change.enabledEvents ? { enabledEvents: change.enabledEvents } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
  };
  // The first write locks the row: a change at the same time waits, then sees the status this one leaves.
  if (!(await updateEndpointSettings(tx, platformUuid, endpointId, settings))) throw new WebhookEndpointNotFoundError(endpointId);
  await assertNotBound(tx, platformUuid, endpointId, {
    ...(asked ? { newUrl: asked } : {}),
    ...(change.status ? { status: change.status } : {}),
  });
  const disabled = (await selectEndpoint(tx, platformUuid, endpointId))!.status === 'disabled';
  // Enabling an enabled endpoint would forget its failure streak: `enabled` only acts on a disabled one.
  if (change.url !== undefined || (change.status === 'enabled' && disabled)) await enableEndpoint(tx, endpointId, 'merchant', change.url);
  if (change.status === 'disabled') await disableEndpoint(tx, endpointId, MERCHANT_DISABLED_REASON);
}

/**
 * Deletes the endpoint: nothing more is sent to it; its log stays. A merchant keeps at least one, and
 * every one an operator disabled.
 */
export async function deleteWebhookEndpoint(db: Db, platformUuid: string, endpointId: string): Promise<void> {
  const outcome = await deleteEndpoint(db, platformUuid, endpointId);
  if (outcome === 'not_found') throw new WebhookEndpointNotFoundError(endpointId);
  if (outcome === 'operator_disabled') throw new EndpointDisabledByOperatorError(endpointId, 'delete');
  if (outcome === 'last_endpoint') throw new WebhookEndpointRefusedError('last_endpoint');
}
