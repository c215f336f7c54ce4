import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assertCartUrlsAllowed } from '../../application/carts/url-policy.js';
import { ApiError, type FieldError } from '../../application/errors.js';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { validCartRequest } from '../support/fixtures.js';

/** validCartRequest's cart (everything on store.example) with `change` applied to it. */
function cartWith(change: (cart: CreateCartRequest['cartObject']) => void = () => {}): CreateCartRequest {
  const request = validCartRequest(randomUUID());
  change(request.cartObject);
  return request;
}

/** What production answers for a cart, given the merchant's registered and verified domains: nothing, or the 422's message and fields. */
function refusal(request: CreateCartRequest, domains: string[], verified: string[] = domains): { message: string; errors: FieldError[] } | undefined {
  try {
    assertCartUrlsAllowed(request, 'production', domains, verified);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.code).toBe('VALIDATION_ERROR');
    return { message: error.message, errors: error.errors };
  }
}

const paths = (found: ReturnType<typeof refusal>) => found?.errors.map((e) => e.path);

describe('where a cart’s URLs may point', () => {
  it('in sandbox, anywhere the schema accepts: loopback, unregistered and unverified hosts alike', () => {
    const local = cartWith((c) => {
      c.store.url = 'http://localhost:3000';
      c.cart.merchantUrls.successUrl = 'http://127.0.0.1:3000/ok';
      c.cart.items[0]!.image = 'http://localhost:3000/t-shirt.png';
    });
    expect(() => assertCartUrlsAllowed(local, 'sandbox', [], [])).not.toThrow();
    expect(() => assertCartUrlsAllowed(cartWith(), 'sandbox', ['other.example'], [])).not.toThrow();
  });

  it('in production, on a verified domain or any subdomain of one', () => {
    expect(refusal(cartWith(), ['store.example'])).toBeUndefined();
    const subdomains = cartWith((c) => {
      c.store.logo = 'https://cdn.store.example/logo.png';
      c.cart.merchantUrls.successUrl = 'https://checkout.eu.store.example/done';
    });
    expect(refusal(subdomains, ['store.example'])).toBeUndefined();
  });

  it('in production, refuses every store, logo and return URL when the merchant registered no domain, saying how to fix it', () => {
    const found = refusal(cartWith(), []);
    expect(paths(found)).toEqual([
      'cartObject.store.url',
      'cartObject.store.logo',
      'cartObject.cart.merchantUrls.successUrl',
      'cartObject.cart.merchantUrls.failureUrl',
    ]);
    expect(found?.errors[0]?.message).toBe('host store.example cannot be checked: this merchant has no registered domains');
    expect(found?.message).toMatch(/^This merchant has no registered domains, so production refuses every cart\./);
  });

  it('refuses a host off the registered domains, a look-alike included, naming the field and the domains', () => {
    const found = refusal(
      cartWith((c) => {
        c.cart.merchantUrls.failureUrl = 'https://evilstore.example/failure';
      }),
      ['store.example', 'shop.example'],
    );
    expect(found?.errors).toEqual([
      {
        path: 'cartObject.cart.merchantUrls.failureUrl',
        message: "host evilstore.example is not one of this merchant's registered domains (store.example, shop.example) nor a subdomain of one",
      },
    ]);
    expect(found?.message).toContain('registered and verified domains (store.example, shop.example)');
  });

  it('refuses a registered but unverified domain, saying where to publish its token', () => {
    const found = refusal(cartWith(), ['store.example'], []);
    expect(paths(found)).toHaveLength(4);
    expect(found?.errors[0]?.message).toBe(
      "host store.example is on this merchant's registered domain store.example, which is not verified: publish the domain's token at https://store.example/.well-known/hosted-checkout-verification (or in its DNS TXT record), then check it again",
    );
    expect(found?.message).toMatch(/; store\.example is registered but not verified\. Publish each domain's token/);
  });

  it('counts only the domain that owns the host as verified, not another registered one', () => {
    const found = refusal(
      cartWith((c) => {
        c.store.logo = 'https://img.cdn.example/logo.png';
      }),
      ['store.example', 'cdn.example'],
      ['store.example'],
    );
    expect(paths(found)).toEqual(['cartObject.store.logo']);
    expect(found?.message).toMatch(/; cdn\.example is registered but not verified\./);
  });

  it('gives the general message when unverified hosts come with other problems', () => {
    const found = refusal(
      cartWith((c) => {
        c.cart.merchantUrls.successUrl = 'https://elsewhere.example/ok';
      }),
      ['store.example'],
      [],
    );
    expect(paths(found)).toEqual([
      'cartObject.store.url',
      'cartObject.store.logo',
      'cartObject.cart.merchantUrls.successUrl',
      'cartObject.cart.merchantUrls.failureUrl',
    ]);
    expect(found?.message).toBe(
      "The store URL, logo and return URLs must be on this merchant's registered and verified domains (store.example) or their subdomains; loopback hosts are for sandbox only.",
    );
  });

  it('refuses loopback hosts anywhere in production, item links and images included, even with the domains in order', () => {
    const found = refusal(
      cartWith((c) => {
        c.store.url = 'http://localhost:3000';
        c.cart.items[1]!.url = 'http://127.0.0.1/socks';
        c.cart.items[1]!.image = 'http://shop.localhost/socks.png';
      }),
      ['store.example'],
    );
    expect(found?.errors).toEqual([
      { path: 'cartObject.store.url', message: 'host localhost is a loopback host, allowed only in sandbox' },
      { path: 'cartObject.cart.items[1].url', message: 'host 127.0.0.1 is a loopback host, allowed only in sandbox' },
      { path: 'cartObject.cart.items[1].image', message: 'host shop.localhost is a loopback host, allowed only in sandbox' },
    ]);
  });

  it('lets item links and images point anywhere public, and a cart without a logo through', () => {
    const found = refusal(
      cartWith((c) => {
        c.store.logo = undefined;
        c.cart.items[0]!.url = 'https://marketplace.example/t-shirt';
        c.cart.items[0]!.image = 'https://images.example/t-shirt.png';
      }),
      ['store.example'],
    );
    expect(found).toBeUndefined();
  });
});
