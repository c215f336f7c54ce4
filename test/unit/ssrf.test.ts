import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  assertConnectable,
  BlockedAddressError,
  checkWebhookUrl,
  guardedLookup,
  isAllowedAddress,
  webhookTargets,
  webhookUrlProblems,
  type WebhookTargets,
} from '../../core/outbound/url-safety.js';

const PRODUCTION = webhookTargets('production', { allowLoopback: false });
/** A deployed sandbox: WEBHOOK_ALLOW_LOOPBACK unset. */
const SANDBOX = webhookTargets('sandbox', { allowLoopback: false });
/** Local development (`npm start`, the tests): WEBHOOK_ALLOW_LOOPBACK=true. */
const LOCAL_SANDBOX = webhookTargets('sandbox', { allowLoopback: true });

const resolvesTo =
  (...addresses: string[]) =>
  () =>
    Promise.resolve(addresses);

/** What a delivery's connection would be given: guardedLookup over a DNS whose answer the test changes. */
function connectThroughGuard(targets: WebhookTargets, dns: { answer: string }) {
  const fakeDns = (_host: string, _options: object, callback: (err: null, addresses: LookupAddress[]) => void) =>
    callback(null, [{ address: dns.answer, family: 4 }]);
  const lookup = guardedLookup(targets, fakeDns);
  return () =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) => lookup('shop.example', { all: false }, (err, address) => resolve({ err, address })));
}

describe('webhook URL safety (SSRF)', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2001:db8::1',
    '64:ff9b::a00:1',
    // IPv4-compatible IPv6 (deprecated, ::/96): judged as the IPv4 it carries, 127.0.0.1 and 10.0.0.1.
    '::7f00:1',
    '::127.0.0.1',
    '::a00:1',
  ])('refuses %s in production', (address) => {
    expect(isAllowedAddress(address, PRODUCTION)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('accepts public %s in both environments', (address) => {
    expect(isAllowedAddress(address, PRODUCTION)).toBe(true);
    expect(isAllowedAddress(address, SANDBOX)).toBe(true);
    expect(isAllowedAddress(address, LOCAL_SANDBOX)).toBe(true);
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '::7f00:1'])(
    'accepts loopback %s only in a sandbox whose deployment allows it (local development)',
    (address) => {
      expect(isAllowedAddress(address, LOCAL_SANDBOX)).toBe(true);
      expect(isAllowedAddress(address, SANDBOX)).toBe(false);
      // Production never, whatever the deployment says, even if asked in so many words.
      expect(webhookTargets('production', { allowLoopback: true })).toEqual(PRODUCTION);
      expect(isAllowedAddress(address, { environment: 'production', allowLoopback: true })).toBe(false);
    },
  );

  it.each(['10.1.2.3', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fe80::1', 'fd12:3456::1', '::ffff:10.0.0.1', '::a00:1', '::a9fe:a9fe'])(
    "refuses %s in sandbox too: our private network and the metadata service are nobody's endpoint",
    (address) => {
      expect(isAllowedAddress(address, LOCAL_SANDBOX)).toBe(false);
      expect(isAllowedAddress(address, SANDBOX)).toBe(false);
    },
  );

  it('requires https in production and refuses hosts resolving to any non-public address', async () => {
    expect(await webhookUrlProblems('http://shop.example/hook', PRODUCTION, resolvesTo('93.184.216.34'))).toEqual(['must be https in production']);
    expect(await webhookUrlProblems('https://shop.example/hook', PRODUCTION, resolvesTo('93.184.216.34'))).toEqual([]);
    expect(await webhookUrlProblems('https://shop.example/hook', PRODUCTION, resolvesTo('93.184.216.34', '10.0.0.5'))).toEqual([
      expect.stringContaining('10.0.0.5'),
    ]);
    expect(await webhookUrlProblems('https://localhost/hook', PRODUCTION, resolvesTo('127.0.0.1'))).toEqual([expect.stringContaining('non-public')]);
    expect(await webhookUrlProblems('https://[::1]/hook', PRODUCTION)).toEqual([expect.stringContaining('non-public')]);
    expect(await webhookUrlProblems('https://169.254.169.254/latest/meta-data', PRODUCTION)).toEqual([expect.stringContaining('non-public')]);
    expect(await webhookUrlProblems('https://nowhere.invalid/hook', PRODUCTION, async () => Promise.reject(new Error('ENOTFOUND')))).toEqual([
      expect.stringContaining('does not resolve'),
    ]);
    expect(await webhookUrlProblems('https://user:pw@shop.example/hook', PRODUCTION, resolvesTo('93.184.216.34'))).toEqual(['must not carry credentials']);
  });

  it('lets a local sandbox use http://localhost, but not other schemes nor private IP literals', async () => {
    expect(await webhookUrlProblems('http://localhost:3002/webhooks', LOCAL_SANDBOX)).toEqual([]);
    expect(await webhookUrlProblems('http://127.0.0.1:3002/webhooks', LOCAL_SANDBOX)).toEqual([]);
    expect(await webhookUrlProblems('http://169.254.169.254/latest/meta-data', LOCAL_SANDBOX)).toEqual([expect.stringContaining('169.254.169.254')]);
    expect(await webhookUrlProblems('http://[fd00::1]/hook', LOCAL_SANDBOX)).toEqual([expect.stringContaining('fd00::1')]);
    expect(await webhookUrlProblems('ftp://localhost/webhooks', LOCAL_SANDBOX)).toEqual(['must be an http or https URL']);
    expect(await webhookUrlProblems('not a url', LOCAL_SANDBOX)).toEqual(['is not a valid URL']);
  });

  it('refuses loopback at registration in a deployed sandbox, by address or by name, and still takes any other http host', async () => {
    for (const url of ['http://127.0.0.1:3002/webhooks', 'http://[::1]:3002/', 'http://[::ffff:127.0.0.1]/']) {
      expect(await webhookUrlProblems(url, SANDBOX), url).toEqual([expect.stringContaining("not this machine's loopback")]);
      expect((await checkWebhookUrl(url, SANDBOX)).merchantProblems, url).toEqual([
        "must resolve to public internet addresses only (this deployment's webhooks may reach nothing else)",
      ]);
    }
    for (const url of ['http://localhost:3002/webhooks', 'http://LOCALHOST/', 'http://admin.localhost/']) {
      expect(await webhookUrlProblems(url, SANDBOX), url).toEqual([expect.stringContaining("names this machine's loopback")]);
    }
    // A name is not resolved in sandbox (the developer's host may not be up yet): its delivery checks it.
    expect(await webhookUrlProblems('http://shop.example/webhooks', SANDBOX)).toEqual([]);
  });

  it('tells a merchant nothing of what our resolver answered: an internal name and a missing one read the same', async () => {
    const generic = ['must resolve to public internet addresses only (production webhooks must reach the public internet)'];
    const internal = await checkWebhookUrl('https://db.internal/hook', PRODUCTION, resolvesTo('10.20.30.40'));
    expect(internal.problems).toEqual([expect.stringContaining('10.20.30.40')]);
    expect(internal.merchantProblems).toEqual(generic);
    const missing = await checkWebhookUrl('https://nothing.internal/hook', PRODUCTION, async () => Promise.reject(new Error('ENOTFOUND')));
    expect(missing.problems).toEqual([expect.stringContaining('does not resolve')]);
    expect(missing.merchantProblems).toEqual(generic);
    expect((await checkWebhookUrl('http://shop.example/hook', PRODUCTION, resolvesTo('93.184.216.34'))).merchantProblems).toEqual([
      'must be https in production',
    ]);
    expect((await checkWebhookUrl('http://10.1.2.3/hook', LOCAL_SANDBOX)).merchantProblems).toEqual([
      "must resolve to public internet addresses or this machine's loopback (sandbox webhooks may reach nothing else)",
    ]);

    // At delivery too: the error a merchant sees of a refused connection names no address; its detail does.
    const { err } = await connectThroughGuard(PRODUCTION, { answer: '10.0.0.7' })();
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err!.message).not.toContain('10.0.0.7');
    expect((err as BlockedAddressError).detail).toContain('10.0.0.7');
    let literal: BlockedAddressError | undefined;
    try {
      assertConnectable(new URL('https://10.0.0.8/hook'), PRODUCTION);
    } catch (error) {
      literal = error as BlockedAddressError;
    }
    expect(literal?.message).not.toContain('10.0.0.8');
    expect(literal?.detail).toContain('10.0.0.8');
  });

  it('refuses at connect time an address that was public at registration (DNS rebinding)', async () => {
    const dns = { answer: '93.184.216.34' };
    const connectTo = connectThroughGuard(PRODUCTION, dns);
    expect(await connectTo()).toEqual({ err: null, address: '93.184.216.34' });
    dns.answer = '10.0.0.7';
    expect((await connectTo()).err).toMatchObject({ code: 'EBLOCKEDADDRESS' });
  });

  it('in a local sandbox, lets a host resolve to loopback at connect time, and nothing private', async () => {
    const dns = { answer: '127.0.0.1' };
    const connectTo = connectThroughGuard(LOCAL_SANDBOX, dns);
    expect(await connectTo()).toEqual({ err: null, address: '127.0.0.1' });
    dns.answer = '10.0.0.7';
    expect((await connectTo()).err).toMatchObject({ code: 'EBLOCKEDADDRESS' });
  });

  it('in a deployed sandbox, refuses at connect time a host that resolves to loopback, naming no address to the merchant', async () => {
    const { err } = await connectThroughGuard(SANDBOX, { answer: '127.0.0.1' })();
    expect(err).toMatchObject({ code: 'EBLOCKEDADDRESS' });
    expect(err!.message).not.toContain('127.0.0.1');
    expect((err as BlockedAddressError).detail).toContain('127.0.0.1');
  });

  it('refuses IP-literal URLs (which skip DNS) the environment may not reach, before connecting', () => {
    expect(() => assertConnectable(new URL('https://127.0.0.1:8443/'), PRODUCTION)).toThrow(/production webhooks must reach the public internet/);
    expect(() => assertConnectable(new URL('http://93.184.216.34/'), PRODUCTION)).toThrow(/https/);
    expect(() => assertConnectable(new URL('http://127.0.0.1/'), LOCAL_SANDBOX)).not.toThrow();
    expect(() => assertConnectable(new URL('http://127.0.0.1/'), SANDBOX)).toThrow(/this deployment's webhooks may reach nothing else/);
    expect(() => assertConnectable(new URL('http://[::1]/'), SANDBOX)).toThrow(BlockedAddressError);
    expect(() => assertConnectable(new URL('http://169.254.169.254/'), LOCAL_SANDBOX)).toThrow(/sandbox webhooks may reach nothing else/);
  });
});
