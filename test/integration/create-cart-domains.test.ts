import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { registerMerchant } from '../../core/onboarding/registration.js';
import { answeringProcessor } from '../support/payment-processors.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { markDomainsVerified } from '../support/verified-domains.js';

// The per-client bucket is shared by every file of the run (all from 127.0.0.1): the fuzzer may have used it up.
const NO_RATE_LIMIT = { RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' };

type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }> };

/** validCartRequest with every merchant-facing URL on `host` (items stay on store.example). */
function cartOn(platformUuid: string, host: string): CreateCartRequest {
  const body = validCartRequest(platformUuid);
  body.cartObject.store.url = `https://${host}`;
  body.cartObject.store.logo = `https://${host}/logo.png`;
  body.cartObject.cart.merchantUrls = { successUrl: `https://${host}/ok`, failureUrl: `https://${host}/ko` };
  return body;
}

const FIELDS: Array<[string, (b: CreateCartRequest, url: string) => void]> = [
  ['cartObject.store.url', (b, url) => (b.cartObject.store.url = url)],
  ['cartObject.store.logo', (b, url) => (b.cartObject.store.logo = `${url}/logo.png`)],
  ['cartObject.cart.merchantUrls.successUrl', (b, url) => (b.cartObject.cart.merchantUrls.successUrl = `${url}/ok`)],
  ['cartObject.cart.merchantUrls.failureUrl', (b, url) => (b.cartObject.cart.merchantUrls.failureUrl = `${url}/ko`)],
];

describe('production create-cart: URLs must be on the merchant’s registered domains', () => {
  const otpSender: MessageSender = { name: 'silent', send: async () => {} };
  const paymentProcessor = answeringProcessor('unused', () => Promise.reject(new Error('not used by these tests')));
  const stack = useTestStack({ CHECKOUT_ENV: 'production', ...NO_RATE_LIMIT }, { otpSender, paymentProcessor });
  let platformUuid: string;
  let bare: string;
  beforeAll(async () => {
    // Verified, as every domain must be to take carts (test/integration/domain-verification.test.ts tests that).
    const register = async (domains: string[]) => {
      const merchant = await registerMerchant(stack.db, stack.config.keyring, {
        name: 'Shop Ltd',
        environment: 'production',
        webhookUrl: 'https://93.184.216.34/hooks',
        domains,
      });
      await markDomainsVerified(stack.db, merchant.platformUuid);
      return merchant;
    };
    platformUuid = (await register(['shop.example', 'bücher.example'])).platformUuid;
    bare = (await register([])).platformUuid;
  });

  const carts = async (uuid: string) => (await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${uuid}`)[0]!.n;

  it.each(FIELDS)('refuses a foreign host in %s, naming the field and the rule, and writes nothing', async (path, set) => {
    const before = await carts(platformUuid);
    const body = cartOn(platformUuid, 'shop.example');
    set(body, 'https://evil.example');
    const res = await postCart(stack.apiUrl, body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as ErrorBody;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.errors).toEqual([
      { path, message: expect.stringContaining("host evil.example is not one of this merchant's registered domains (shop.example, xn--bcher-kva.example)") },
    ]);
    expect(await carts(platformUuid)).toBe(before);
  });

  it('accepts a registered domain and its subdomains, in any case, and IDN hosts as the URL parser writes them', async () => {
    const body = cartOn(platformUuid, 'shop.example');
    body.cartObject.store.logo = 'https://cdn.shop.example/logo.png';
    body.cartObject.cart.merchantUrls = { successUrl: 'https://WWW.Shop.Example/ok', failureUrl: 'https://bücher.example/ko' };
    // Product links and images are not the merchant's identity: any public host (a CDN) is fine.
    body.cartObject.cart.items[0]!.image = 'https://images.cdn-provider.example/t-shirt.png';
    const res = await postCart(stack.apiUrl, body);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it.each(['evilshop.example', 'shop.example.evil.example', 'xshop.example'])('refuses the look-alike %s', async (host) => {
    const res = await postCart(stack.apiUrl, cartOn(platformUuid, host));
    expect(res.status).toBe(400);
    const error = (await res.json()) as ErrorBody;
    expect(error.errors.map((e) => e.path)).toEqual(FIELDS.map(([path]) => path));
    expect(error.errors[0]!.message).toContain(`host ${host} is not one of this merchant's registered domains`);
  });

  it('refuses loopback hosts, which only sandbox allows, in return URLs and items alike', async () => {
    const body = cartOn(platformUuid, 'shop.example');
    body.cartObject.cart.merchantUrls.successUrl = 'http://127.0.0.1:4000/ok';
    body.cartObject.cart.items[1]!.image = 'http://localhost:4000/socks.png';
    const res = await postCart(stack.apiUrl, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors).toEqual([
      { path: 'cartObject.cart.merchantUrls.successUrl', message: expect.stringContaining('allowed only in sandbox') },
      { path: 'cartObject.cart.items[1].image', message: expect.stringContaining('allowed only in sandbox') },
    ]);
  });

  it('refuses every cart of a production merchant with no registered domains, saying to register them', async () => {
    const res = await postCart(stack.apiUrl, validCartRequest(bare));
    expect(res.status).toBe(400);
    const error = (await res.json()) as ErrorBody;
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/no registered domains.*register the domains/) });
    expect(error.errors.map((e) => e.path)).toEqual(FIELDS.map(([path]) => path));
    expect(await carts(bare)).toBe(0);
  });
});

describe('sandbox create-cart: any public host, and loopback for local development', () => {
  const stack = useTestStack(NO_RATE_LIMIT);
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ domains: [] })).platformUuid;
  });

  it('accepts http://127.0.0.1:<port>, http://localhost:<port>, [::1] and *.localhost return URLs and item links', async () => {
    const body = validCartRequest(platformUuid);
    body.cartObject.cart.merchantUrls = { successUrl: 'http://127.0.0.1:4000/ok?x=1', failureUrl: 'http://localhost:4000/ko' };
    body.cartObject.cart.items[0]!.image = 'http://[::1]:8080/t-shirt.png';
    body.cartObject.cart.items[0]!.url = 'http://shop.localhost:3000/t-shirt';
    const res = await postCart(stack.apiUrl, body);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('does not hold sandbox to registered domains', async () => {
    expect((await postCart(stack.apiUrl, cartOn(platformUuid, 'evil.example'))).status).toBe(200);
  });

  it('keeps the store URL and logo https with a public host, and other private hosts out', async () => {
    const body = validCartRequest(platformUuid);
    body.cartObject.store.url = 'http://127.0.0.1:3000';
    body.cartObject.store.logo = 'https://127.0.0.1/logo.png';
    body.cartObject.cart.merchantUrls.successUrl = 'http://10.0.0.1/ok';
    body.cartObject.cart.merchantUrls.failureUrl = 'http://127.0.0.2/ko';
    const res = await postCart(stack.apiUrl, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).errors.map((e) => e.path)).toEqual([
      'cartObject.store.url',
      'cartObject.store.logo',
      'cartObject.cart.merchantUrls.successUrl',
      'cartObject.cart.merchantUrls.failureUrl',
    ]);
  });
});
