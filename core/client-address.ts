import ipaddr from 'ipaddr.js';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Limit } from './rate-limits.js';

/**
 * The address to rate-limit by, for the API (create-cart) and the checkout page alike: both pass
 * `TRUST_PROXY` as `trustedProxyHops`. X-Forwarded-For is believed only for the hops our own proxies added
 * (`trustedProxyHops` from the right), because a client can put anything in the header itself.
 * IPv6 clients are grouped by /64: one customer line usually owns a whole /64 (and the /48 it is in
 * shares a ceiling too: ipv6Network48, which perAddress counts for every per-address limit).
 */
export function clientAddress(c: Context, trustedProxyHops: number): string {
  const socket = getConnInfo(c).remote.address ?? 'unknown';
  let address = socket;
  if (trustedProxyHops > 0) {
    const forwarded = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const chain = [...forwarded, socket];
    address = chain[Math.max(0, chain.length - 1 - trustedProxyHops)]!;
  }
  return normalize(address);
}

function normalize(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const bytes = parsed.toByteArray().slice(0, 8).concat(Array(8).fill(0));
  return `${ipaddr.fromByteArray(bytes).toString()}/64`;
}

/**
 * The /48 an IPv6 client (a `…/64` from clientAddress) belongs to, or undefined for IPv4 and unknown
 * addresses. A /48 is one site's usual allocation: its 65 536 /64s would otherwise each get a
 * client's allowance, so the limits also count them together, under a ceiling of a few clients'.
 */
export function ipv6Network48(client: string): string | undefined {
  if (!client.endsWith('/64')) return undefined;
  const prefix = client.slice(0, -3);
  if (!ipaddr.IPv6.isValid(prefix)) return undefined;
  const bytes = ipaddr.IPv6.parse(prefix).toByteArray().slice(0, 6).concat(Array(10).fill(0));
  return `${ipaddr.fromByteArray(bytes).toString()}/48`;
}

/**
 * One per-address limit as every limiter counts it: `max` for the client (an IPv4 address or an IPv6
 * /64, from clientAddress), and for an IPv6 client also `max × clients48` (RATE_LIMIT_IPV6_48_CLIENTS)
 * for its whole /48, the client's own first: counted in order (countHitsInOrder) a refused /64 never
 * reaches its /48's count. Buckets are `<bucket>:<address>` and `<bucket>:<network>/48`.
 */
export function perAddress(bucket: string, client: string, max: number, windowSeconds: number, clients48: number): Limit[] {
  const network = ipv6Network48(client);
  return [{ bucket: `${bucket}:${client}`, max, windowSeconds }, ...(network ? [{ bucket: `${bucket}:${network}`, max: max * clients48, windowSeconds }] : [])];
}
