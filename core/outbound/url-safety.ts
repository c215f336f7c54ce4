import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../config.js';

/**
 * Keeps webhooks from being aimed at our own network (SSRF). In production a URL must be https and
 * every address it resolves to must be public unicast; the check runs at registration and again on
 * the address each delivery actually connects to, so re-pointing DNS after registration does not help.
 * Sandbox also accepts http, and nothing else: a sandbox endpoint must not reach our private network,
 * the cloud metadata service or this machine either. Only local development (WEBHOOK_ALLOW_LOOPBACK,
 * which production refuses) lets sandbox reach loopback, so a developer can receive on localhost: a
 * deployed sandbox that did would let anyone who registers a URL probe the worker's own services and
 * read their answers in the delivery log.
 */

/**
 * What one merchant's webhooks may reach: its environment's rules and, for a sandbox merchant of a
 * deployment that allows it, this machine's loopback. Registration, every change of an endpoint's URL,
 * every delivery and every test event take theirs from webhookTargets, so they agree.
 */
export interface WebhookTargets {
  environment: Environment;
  allowLoopback: boolean;
}

/** The deployment's part of it: `config.webhooks` (WEBHOOK_ALLOW_LOOPBACK). */
export interface LoopbackSetting {
  allowLoopback: boolean;
}

/** What a deployment that does not allow loopback (every deployed one) gives. */
export const NO_LOOPBACK: LoopbackSetting = { allowLoopback: false };

/** A merchant's targets: loopback only for sandbox, and only where the deployment allows it. */
export function webhookTargets(environment: Environment, deployment: LoopbackSetting): WebhookTargets {
  return { environment, allowLoopback: environment === 'sandbox' && deployment.allowLoopback };
}

const reachesLoopback = (targets: WebhookTargets) => targets.environment === 'sandbox' && targets.allowLoopback;

/**
 * Its message is what a merchant may see (a delivery attempt's error, a test event's answer): it never
 * says what our resolver answered, which would map our network for whoever registers a URL. `detail`,
 * with the addresses, is for operators' logs only.
 */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/** The one thing a merchant is told about an address we refuse, whatever our resolver answered. */
export function blockedAddressMessage(targets: WebhookTargets): string {
  if (targets.environment === 'production') return 'must resolve to public internet addresses only (production webhooks must reach the public internet)';
  return reachesLoopback(targets)
    ? "must resolve to public internet addresses or this machine's loopback (sandbox webhooks may reach nothing else)"
    : "must resolve to public internet addresses only (this deployment's webhooks may reach nothing else)";
}

/**
 * Where these targets allow a webhook to go: public unicast (not private, link-local, CGNAT,
 * multicast, documentation or other reserved ranges), and loopback where the targets allow it.
 */
export function isAllowedAddress(address: string, targets: WebhookTargets): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.parse(canonicalAddress(address)).range();
  return range === 'unicast' || (reachesLoopback(targets) && range === 'loopback');
}

/**
 * The address as it is judged and compared: an IPv6 that carries an IPv4, mapped (::ffff:10.0.0.1) or
 * compatible (::10.0.0.1, deprecated, which ipaddr.js would class as public unicast), as that IPv4;
 * every other address in its canonical text. An address that does not parse is returned as given.
 */
export function canonicalAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const bytes = parsed.toByteArray();
  const v4 = bytes.slice(12);
  // ::/96, except :: and ::1, which are IPv6's own unspecified and loopback addresses.
  const compatible = bytes.slice(0, 12).every((b) => b === 0) && (v4.slice(0, 3).some((b) => b !== 0) || v4[3]! > 1);
  return compatible ? ipaddr.fromByteArray(v4).toString() : parsed.toString();
}

function disallowedAddressProblem(addresses: string[], targets: WebhookTargets): string[] {
  if (targets.environment === 'production')
    return [`resolves to a non-public address (${addresses.join(', ')}); production webhooks must reach the public internet`];
  if (reachesLoopback(targets))
    return [`resolves to ${addresses.join(', ')}; sandbox webhooks may reach public addresses or this machine's loopback, nothing else`];
  return [`resolves to ${addresses.join(', ')}; this deployment's webhooks may reach public addresses only, not this machine's loopback nor a private network`];
}

/** Names that are this machine's loopback by definition (RFC 6761), whatever a resolver says. */
const isLoopbackName = (host: string) => host.toLowerCase() === 'localhost' || host.toLowerCase().endsWith('.localhost');

export type Resolve = (hostname: string) => Promise<string[]>;

export const resolveAll: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))),
  );

const MAX_URL_LENGTH = 2048;

/**
 * Problems with a webhook URL for these targets, empty when it may be registered: `problems` in
 * full, for operators and logs; `merchantProblems` the same but never what our resolver answered (the
 * addresses a host resolves to, or whether it resolves at all), which would let anyone who registers a
 * URL probe our internal names.
 */
export async function checkWebhookUrl(
  rawUrl: string,
  targets: WebhookTargets,
  resolve: Resolve = resolveAll,
): Promise<{ problems: string[]; merchantProblems: string[] }> {
  const problems = await webhookUrlProblems(rawUrl, targets, resolve);
  const fromResolver = (p: string) => p.startsWith('resolves to ') || (p.startsWith('host ') && p.endsWith(' does not resolve'));
  const merchantProblems = [...new Set(problems.map((p) => (fromResolver(p) ? blockedAddressMessage(targets) : p)))];
  return { problems, merchantProblems };
}

/** Problems with a webhook URL for these targets, in full (see checkWebhookUrl); empty when it may be registered. */
export async function webhookUrlProblems(rawUrl: string, targets: WebhookTargets, resolve: Resolve = resolveAll): Promise<string[]> {
  if (rawUrl.length > MAX_URL_LENGTH) return [`must be at most ${MAX_URL_LENGTH} characters`];
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return ['is not a valid URL'];
  }
  if (url.username || url.password) return ['must not carry credentials'];
  if (url.hash) return ['must not have a fragment'];
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (targets.environment === 'sandbox') {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return ['must be an http or https URL'];
    // `localhost` needs no resolver to be known for loopback: refused here, as its delivery would be.
    if (isLoopbackName(host) && !reachesLoopback(targets)) {
      return [`names this machine's loopback (${host}); this deployment's webhooks may reach public addresses only`];
    }
    // Any other sandbox host need not resolve yet (the developer's endpoint may not be up); each
    // delivery checks the address it connects to.
    return isIP(host) && !isAllowedAddress(host, targets) ? disallowedAddressProblem([host], targets) : [];
  }
  if (url.protocol !== 'https:') return ['must be https in production'];
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return [`host ${host} does not resolve`];
  }
  if (addresses.length === 0) return [`host ${host} does not resolve`];
  const blocked = addresses.filter((a) => !isAllowedAddress(a, targets));
  return blocked.length ? disallowedAddressProblem(blocked, targets) : [];
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for http(s).request that refuses answers the targets do not allow. Node connects to the
 * address this returns, so the check and the connection see the same address. IP-literal hosts skip
 * lookup entirely; `assertConnectable` covers them.
 */
export function guardedLookup(targets: WebhookTargets, lookup: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const blocked = list.find((a) => !isAllowedAddress(a.address, targets));
      if (blocked || list.length === 0) {
        return callback(
          new BlockedAddressError(
            `the endpoint's host ${blockedAddressMessage(targets)}`,
            `${hostname} resolves to ${blocked?.address ?? 'no address'}, which ${targets.environment} webhooks of this deployment may not reach`,
          ),
          '',
        );
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Refuses, before any connection, a production delivery to a non-https URL, and an IP literal the targets do not allow. */
export function assertConnectable(url: URL, targets: WebhookTargets): void {
  if (targets.environment === 'production' && url.protocol !== 'https:') throw new BlockedAddressError('production webhooks must be https');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && !isAllowedAddress(host, targets))
    throw new BlockedAddressError(
      `the endpoint's host ${blockedAddressMessage(targets)}`,
      `${host} is not an address ${targets.environment} webhooks of this deployment may reach`,
    );
}
