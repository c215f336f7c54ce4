import { isIP } from 'node:net';
import { canonicalAddress, type Resolve } from '../outbound/url-safety.js';

/**
 * What a webhook URL is for the binding of an operator's disable (core/webhooks/endpoints.ts):
 * the receiver it reaches, not how its URL is spelt. Two URLs are the same target when they share
 * scheme, host, port and path once each is normalised: WHATWG URL lower-cases the scheme and host,
 * drops the default port and resolves dot segments (`%2e` included); here the host also loses a
 * trailing dot and an IPv6 address carrying an IPv4 is that IPv4, and the path loses its parameters
 * (`;x`, which many servers ignore), its percent-encoding of unreserved characters (`%6F` is `o`),
 * repeated and trailing slashes. The query and fragment never count.
 */
export interface EndpointTarget {
  scheme: string;
  host: string;
  /** Always explicit, so that a default port and the same port written out are one target. */
  port: string;
  path: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** RFC 3986's unreserved characters: percent-encoding one changes nothing a server sees. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

const decodeUnreserved = (segment: string) =>
  segment.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : escape.toUpperCase();
  });

function normalisePath(pathname: string): string {
  const segments = pathname.split('/').map((segment) => decodeUnreserved(segment.replace(/;.*$/, '')));
  // Dropping parameters can leave a dot segment (`..;x`), which servers resolve: resolved here again.
  const resolved = new URL(segments.join('/').replace(/\/{2,}/g, '/'), 'http://target.invalid').pathname;
  return resolved.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
}

function normaliseHost(hostname: string): string {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? canonicalAddress(host) : host.replace(/\.+$/, '');
}

/** The URL's target; undefined for what is not a URL (refused by its own check). */
export function parseEndpointTarget(url: string): EndpointTarget | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return {
    scheme: parsed.protocol,
    host: normaliseHost(parsed.hostname),
    port: parsed.port || (DEFAULT_PORTS[parsed.protocol] ?? ''),
    path: normalisePath(parsed.pathname),
  };
}

/** The target as one string, its host replaced by `host` when given (an address it resolved to). */
export function targetKey(target: EndpointTarget, host = target.host): string {
  return `${target.scheme}//${isIP(host) === 6 ? `[${host}]` : host}:${target.port}${target.path}`;
}

/** The URL's target as one string (targetKey): equal for every spelling of the same receiver. */
export function endpointTarget(url: string): string | undefined {
  const target = parseEndpointTarget(url);
  return target && targetKey(target);
}

/**
 * The addresses the target's host stands for, canonical (canonicalAddress): itself when it is one,
 * else what the resolver answers now, none when it answers nothing (a name that does not resolve is
 * still bound by its name).
 */
export async function targetAddresses(target: EndpointTarget, resolve: Resolve): Promise<string[]> {
  if (isIP(target.host)) return [target.host];
  const addresses = await resolve(target.host).catch(() => []);
  return [...new Set(addresses.map(canonicalAddress))];
}

/** Every key the target is known by: its name's, and each address's in its place. */
export function targetKeys(target: EndpointTarget, addresses: readonly string[]): string[] {
  return [...new Set([targetKey(target), ...addresses.map((address) => targetKey(target, canonicalAddress(address)))])];
}
