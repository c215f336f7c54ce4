import fc from 'fast-check';
import { Hono } from 'hono';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { clientAddress, ipv6Network48, perAddress } from '../../core/client-address.js';

const app = new Hono().get('/', (c) => c.text(clientAddress(c, Number(c.req.query('hops')))));

/** What clientAddress says for a request from `socket` carrying `forwarded` as X-Forwarded-For, behind `hops` proxies of ours. */
async function addressOf(socket: string | undefined, hops: number, forwarded?: string): Promise<string> {
  const headers: Record<string, string> = forwarded === undefined ? {} : { 'x-forwarded-for': forwarded };
  const res = await app.request(`/?hops=${hops}`, { headers }, { incoming: { socket: { remoteAddress: socket } } });
  return res.text();
}

/** The /64 an IPv6 address is in, by its first eight bytes, written independently of the module. */
const network64 = (address: string) => {
  const bytes = ipaddr.IPv6.parse(address).toByteArray();
  return `${ipaddr.fromByteArray([...bytes.slice(0, 8), ...Array<number>(8).fill(0)]).toString()}/64`;
};

describe('the address a request is rate-limited by', () => {
  it('is the socket’s without a proxy of ours: a client’s own X-Forwarded-For is not believed', async () => {
    expect(await addressOf('198.51.100.7', 0)).toBe('198.51.100.7');
    expect(await addressOf('198.51.100.7', 0, '203.0.113.1')).toBe('198.51.100.7');
  });

  it('behind one proxy, is the entry that proxy added, not whatever the client put before it', async () => {
    expect(await addressOf('10.0.0.2', 1, '203.0.113.1')).toBe('203.0.113.1');
    expect(await addressOf('10.0.0.2', 1, '6.6.6.6, 203.0.113.1')).toBe('203.0.113.1');
    expect(await addressOf('10.0.0.2', 1, ' 6.6.6.6 ,, 203.0.113.1 ')).toBe('203.0.113.1');
  });

  it('behind two proxies, is the entry the outer one added', async () => {
    expect(await addressOf('10.0.0.2', 2, '6.6.6.6, 203.0.113.1, 10.0.0.1')).toBe('203.0.113.1');
  });

  it('is the socket’s when a proxy of ours added no header, and the leftmost entry when fewer than the trusted hops are there', async () => {
    expect(await addressOf('198.51.100.7', 1)).toBe('198.51.100.7');
    expect(await addressOf('10.0.0.2', 3, '203.0.113.1')).toBe('203.0.113.1');
  });

  it('reads an IPv4-mapped IPv6 socket as the IPv4 address, so one client is not counted under two names', async () => {
    expect(await addressOf('::ffff:198.51.100.7', 0)).toBe('198.51.100.7');
    expect(await addressOf('10.0.0.2', 1, '::ffff:203.0.113.1')).toBe('203.0.113.1');
  });

  it('groups an IPv6 client by its /64, whatever the rest of the address and however it is written', async () => {
    expect(await addressOf('2001:db8:1:2:aaaa::1', 0)).toBe('2001:db8:1:2::/64');
    expect(await addressOf('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee', 0)).toBe('2001:db8:1:2::/64');
    expect(await addressOf('10.0.0.2', 1, '2001:db8:1:3::9')).toBe('2001:db8:1:3::/64');
  });

  it('keeps what is not an address as it came, and says unknown without a socket address', async () => {
    expect(await addressOf('10.0.0.2', 1, 'unknown')).toBe('unknown');
    expect(await addressOf(undefined, 0)).toBe('unknown');
  });

  it('gives every address of one /64 the same name, and its /48 the /64’s first six bytes (property)', async () => {
    // IPv4-mapped addresses are IPv4 clients (above), not a /64 of their own.
    const ipV6 = fc.ipV6().filter((address) => !ipaddr.IPv6.parse(address).isIPv4MappedAddress());
    const tail = fc.uint8Array({ minLength: 8, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(ipV6, tail, ipV6, async (address, otherTail, other) => {
        const bytes = ipaddr.IPv6.parse(address).toByteArray();
        const sibling = ipaddr.fromByteArray([...bytes.slice(0, 8), ...otherTail]).toString();
        fc.pre(!ipaddr.IPv6.parse(sibling).isIPv4MappedAddress());
        const client = await addressOf(address, 0);
        expect(client).toBe(network64(address));
        expect(await addressOf(sibling, 0)).toBe(client);
        expect((await addressOf(other, 0)) === client).toBe(network64(other) === client);
        expect(ipv6Network48(client)).toBe(`${ipaddr.fromByteArray([...bytes.slice(0, 6), ...Array<number>(10).fill(0)]).toString()}/48`);
      }),
      { numRuns: 100 },
    );
  });

  it('names an IPv4 client by its address, which has no /48 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.ipV4(), async (address) => {
        const client = await addressOf(address, 0);
        expect(client).toBe(ipaddr.IPv4.parse(address).toString());
        expect(ipv6Network48(client)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});

describe('the /48 of an IPv6 client', () => {
  it('is the first 48 bits of its /64', () => {
    expect(ipv6Network48('2001:db8:1:2::/64')).toBe('2001:db8:1::/48');
    expect(ipv6Network48('2001:db8:1:ffff::/64')).toBe('2001:db8:1::/48');
  });

  it('is undefined for IPv4, unknown addresses and anything that is not an IPv6 /64', () => {
    for (const client of ['198.51.100.7', 'unknown', 'garbage/64', '2001:db8:1:2::', '']) expect(ipv6Network48(client), client).toBeUndefined();
  });
});

describe('one per-address limit', () => {
  it('is one bucket for an IPv4 client', () => {
    expect(perAddress('page-client', '198.51.100.7', 30, 60, 16)).toEqual([{ bucket: 'page-client:198.51.100.7', max: 30, windowSeconds: 60 }]);
  });

  it('is the /64’s bucket, then its /48’s with room for clients48 clients', () => {
    expect(perAddress('page-client', '2001:db8:1:2::/64', 30, 60, 16)).toEqual([
      { bucket: 'page-client:2001:db8:1:2::/64', max: 30, windowSeconds: 60 },
      { bucket: 'page-client:2001:db8:1::/48', max: 480, windowSeconds: 60 },
    ]);
  });
});
