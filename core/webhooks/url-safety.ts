import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../config.js';

/**
 * Keeps webhooks from being aimed at our own network (SSRF). In production a URL must be https and
 * every address it resolves to must be public unicast; the check runs at registration and again on
 * the address each delivery actually connects to, so re-pointing DNS after registration does not help.
 * Sandbox also accepts http and loopback, so a developer can receive on localhost, and nothing else:
 * a sandbox endpoint must not reach our private network or the cloud metadata service either.
 */

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
export function blockedAddressMessage(environment: Environment): string {
  return environment === 'production'
    ? 'must resolve to public internet addresses only (production webhooks must reach the public internet)'
    : "must resolve to public internet addresses or this machine's loopback (sandbox webhooks may reach nothing else)";
}

/**
 * Where this environment may send webhooks: public unicast (not private, link-local, CGNAT,
 * multicast, documentation or other reserved ranges), and in sandbox loopback too.
 */
export function isAllowedAddress(address: string, environment: Environment): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() unwraps IPv4-mapped IPv6 (::ffff:10.0.0.1) so it is judged as the IPv4 it is.
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (environment === 'sandbox' && range === 'loopback');
}

function disallowedAddressProblem(addresses: string[], environment: Environment): string[] {
  if (environment === 'production') return [`resolves to a non-public address (${addresses.join(', ')}); production webhooks must reach the public internet`];
  return [`resolves to ${addresses.join(', ')}; sandbox webhooks may reach public addresses or this machine's loopback, nothing else`];
}

export type Resolve = (hostname: string) => Promise<string[]>;

export const resolveAll: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))),
  );

const MAX_URL_LENGTH = 2048;

/**
 * Problems with a webhook URL for this environment, empty when it may be registered: `problems` in
 * full, for operators and logs; `merchantProblems` the same but never what our resolver answered (the
 * addresses a host resolves to, or whether it resolves at all), which would let anyone who registers a
 * URL probe our internal names.
 */
export async function checkWebhookUrl(
  rawUrl: string,
  environment: Environment,
  resolve: Resolve = resolveAll,
): Promise<{ problems: string[]; merchantProblems: string[] }> {
  const problems = await webhookUrlProblems(rawUrl, environment, resolve);
  const fromResolver = (p: string) => p.startsWith('resolves to ') || (p.startsWith('host ') && p.endsWith(' does not resolve'));
  const merchantProblems = [...new Set(problems.map((p) => (fromResolver(p) ? blockedAddressMessage(environment) : p)))];
  return { problems, merchantProblems };
}

/** Problems with a webhook URL for this environment, in full (see checkWebhookUrl); empty when it may be registered. */
export async function webhookUrlProblems(rawUrl: string, environment: Environment, resolve: Resolve = resolveAll): Promise<string[]> {
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
  if (environment === 'sandbox') {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return ['must be an http or https URL'];
    // A sandbox host need not resolve yet (the developer's endpoint may not be up); each delivery
    // checks the address it connects to.
    return isIP(host) && !isAllowedAddress(host, environment) ? disallowedAddressProblem([host], environment) : [];
  }
  if (url.protocol !== 'https:') return ['must be https in production'];
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return [`host ${host} does not resolve`];
  }
  if (addresses.length === 0) return [`host ${host} does not resolve`];
  const blocked = addresses.filter((a) => !isAllowedAddress(a, environment));
  return blocked.length ? disallowedAddressProblem(blocked, environment) : [];
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for http(s).request that refuses answers the environment does not allow. Node connects
 * to the address this returns, so the check and the connection see the same address. IP-literal
 * hosts skip lookup entirely; `assertConnectable` covers them.
 */
export function guardedLookup(environment: Environment, lookup: LookupFunction = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const blocked = list.find((a) => !isAllowedAddress(a.address, environment));
      if (blocked || list.length === 0) {
        return callback(
          new BlockedAddressError(
            `the endpoint's host ${blockedAddressMessage(environment)}`,
            `${hostname} resolves to ${blocked?.address ?? 'no address'}, which ${environment} webhooks may not reach`,
          ),
          '',
        );
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Refuses, before any connection, a production delivery to a non-https URL, and an IP literal the environment does not allow. */
export function assertConnectable(url: URL, environment: Environment): void {
  if (environment === 'production' && url.protocol !== 'https:') throw new BlockedAddressError('production webhooks must be https');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && !isAllowedAddress(host, environment))
    throw new BlockedAddressError(`the endpoint's host ${blockedAddressMessage(environment)}`, `${host} is not an address ${environment} webhooks may reach`);
}
