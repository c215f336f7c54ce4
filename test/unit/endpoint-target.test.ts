import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointTarget } from '../../core/webhooks/endpoint-target.js';

/**
 * Security review, issue 48 point 4: an operator's disable binds the receiver, not one spelling of its
 * URL. endpointTarget is what two URLs must share to be the same receiver by name.
 */

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
const segment = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_~'), minLength: 1, maxLength: 8 });
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`);
const host = fc.domain();
const percentEncode = (ch: string) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;

describe('endpointTarget: one receiver, whatever the spelling', () => {
  it.each([
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.1:47002/h%6Fok'],
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.1:47002/%68%6f%6F%6B'],
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.1:47002/hook;x'],
    ['http://127.0.0.1:47002/a/hook', 'http://127.0.0.1:47002/a;v=1/hook;x=2'],
    ['http://127.0.0.1:47002/hook', 'http://[::ffff:127.0.0.1]:47002/hook'],
    ['http://127.0.0.1:47002/hook', 'http://[::ffff:7f00:1]:47002/hook'],
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.1.:47002/hook'],
    ['https://shop.example/hook', 'https://SHOP.example./hook'],
    ['https://shop.example/hook', 'HTTPS://shop.example:443/hook/'],
    ['https://shop.example/hook', 'https://shop.example/x/../hook/./'],
    ['https://shop.example/hook', 'https://shop.example/x/%2e%2E/hook'],
    ['https://shop.example/hook', 'https://shop.example//hook?x=1#frag'],
  ])('%s is %s', (a, b) => {
    expect(endpointTarget(b)).toBe(endpointTarget(a));
    expect(endpointTarget(a)).toBeDefined();
  });

  it.each([
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.1:47003/hook'],
    ['http://127.0.0.1:47002/hook', 'http://127.0.0.2:47002/hook'],
    ['https://shop.example/hook', 'https://shop.example/other'],
    ['https://shop.example/a%2Fb', 'https://shop.example/a/b'],
    ['https://shop.example/hook', 'http://shop.example/hook'],
  ])('%s is not %s', (a, b) => {
    expect(endpointTarget(b)).not.toBe(endpointTarget(a));
  });

  it('is undefined for what is not a URL', () => {
    expect(endpointTarget('not a url')).toBeUndefined();
  });

  it('ignores host case, a trailing dot, the default port, a query, a fragment and path parameters', () => {
    fc.assert(
      fc.property(host, path, fc.boolean(), fc.string({ maxLength: 6 }), (h, p, https, extra) => {
        const scheme = https ? 'https' : 'http';
        const plain = endpointTarget(`${scheme}://${h}${p}`);
        const spelt = endpointTarget(
          `${scheme.toUpperCase()}://${h.toUpperCase()}.:${https ? 443 : 80}${p.replaceAll('/', `;${encodeURIComponent(extra)}/`).replace(/^;[^/]*/, '')};q?x=${encodeURIComponent(extra)}#${encodeURIComponent(extra)}`,
        );
        expect(spelt).toBe(plain);
      }),
    );
  });

  it('decodes percent-encoded unreserved characters, in either case of hex digit', () => {
    fc.assert(
      fc.property(host, path, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (h, p, picks, upper) => {
        const chars = [...p];
        for (const pick of picks) {
          const i = pick % chars.length;
          if (UNRESERVED.includes(chars[i]!)) chars[i] = upper ? percentEncode(chars[i]!).toUpperCase() : percentEncode(chars[i]!);
        }
        expect(endpointTarget(`https://${h}${chars.join('')}`)).toBe(endpointTarget(`https://${h}${p}`));
      }),
    );
  });

  it('tells different paths apart, and is its own fixed point', () => {
    fc.assert(
      fc.property(host, path, path, (h, a, b) => {
        fc.pre(a !== b);
        const target = endpointTarget(`https://${h}${a}`)!;
        expect(endpointTarget(`https://${h}${b}`)).not.toBe(target);
        expect(endpointTarget(target)).toBe(target);
      }),
    );
  });
});
