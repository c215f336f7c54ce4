import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerMerchant } from '../../core/onboarding/registration.js';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

type Body = {
  cartObject: {
    store: Record<string, unknown>;
    cart: Record<string, unknown> & { items: Array<Record<string, unknown>>; extra: Record<string, unknown>; merchantUrls: Record<string, unknown> };
  };
} & Record<string, unknown>;

/** A valid three-item request (the third is a free gift), changed by `change`. */
function requestWith(platformUuid: string, change: (b: Body) => void): Body {
  const body = structuredClone(validCartRequest(platformUuid)) as unknown as Body;
  body.cartObject.cart.items.push({
    title: 'Gift',
    description: 'Free',
    price: 0,
    quantity: 1,
    url: 'https://store.example/gift',
    image: 'https://store.example/gift.png',
    zeroPay: true,
  });
  change(body);
  return body;
}

const item = (b: Body, i = 0) => b.cartObject.cart.items[i]!;

// Each create-cart rule (docs/decisions/error-model.md, core/checkout/cart-schema.ts), broken one at a time: [what, change, expected error paths].
const CASES: Array<[string, (b: Body) => void, string[]]> = [
  ['cartObject missing', (b) => delete (b as Partial<Body>).cartObject, ['cartObject']],
  ['unknown top-level field', (b) => (b.extraField = 1), ['extraField']],
  ['store missing', (b) => delete (b.cartObject as Partial<Body['cartObject']>).store, ['cartObject.store']],
  ['platformUuid not a UUID', (b) => (b.cartObject.store.platformUuid = 'merchant-1'), ['cartObject.store.platformUuid']],
  ['store name missing', (b) => delete b.cartObject.store.name, ['cartObject.store.name']],
  ['store name blank', (b) => (b.cartObject.store.name = '   '), ['cartObject.store.name']],
  ['store name over 255 characters', (b) => (b.cartObject.store.name = 'n'.repeat(256)), ['cartObject.store.name']],
  ['store name with a control character', (b) => (b.cartObject.store.name = 'Shop\u0000'), ['cartObject.store.name']],
  ['store url not https', (b) => (b.cartObject.store.url = 'http://store.example'), ['cartObject.store.url']],
  ['store url not public (localhost)', (b) => (b.cartObject.store.url = 'https://localhost/'), ['cartObject.store.url']],
  ['store url with credentials', (b) => (b.cartObject.store.url = 'https://user:pw@store.example/'), ['cartObject.store.url']],
  ['store url over 2048 characters', (b) => (b.cartObject.store.url = `https://store.example/${'a'.repeat(2048)}`), ['cartObject.store.url']],
  ['store logo not https', (b) => (b.cartObject.store.logo = 'http://store.example/logo.png'), ['cartObject.store.logo']],
  ['unknown store field', (b) => (b.cartObject.store.phone = '+33'), ['cartObject.store.phone']],
  ['currency in lower case', (b) => (b.cartObject.cart.currency = 'eur'), ['cartObject.cart.currency']],
  ['currency not in ISO 4217', (b) => (b.cartObject.cart.currency = 'ABC'), ['cartObject.cart.currency']],
  ['currency not payable (gold)', (b) => (b.cartObject.cart.currency = 'XAU'), ['cartObject.cart.currency']],
  ['country as a name', (b) => (b.cartObject.cart.country = 'France'), ['cartObject.cart.country']],
  ['country not in ISO 3166', (b) => (b.cartObject.cart.country = 'ZZ'), ['cartObject.cart.country']],
  ['no items', (b) => (b.cartObject.cart.items = []), ['cartObject.cart.items']],
  ['101 items', (b) => (b.cartObject.cart.items = Array(101).fill(item(b))), ['cartObject.cart.items']],
  ['price with decimals', (b) => (item(b).price = 19.99), ['cartObject.cart.items[0].price']],
  ['negative price', (b) => (item(b, 1).price = -1), ['cartObject.cart.items[1].price']],
  ['price as a string', (b) => (item(b).price = '1999'), ['cartObject.cart.items[0].price']],
  ['quantity 0', (b) => (item(b).quantity = 0), ['cartObject.cart.items[0].quantity']],
  ['fractional quantity', (b) => (item(b).quantity = 1.5), ['cartObject.cart.items[0].quantity']],
  ['zeroPay true on a paid item', (b) => (item(b, 2).price = 100), ['cartObject.cart.items[2].zeroPay']],
  ['zeroPay missing', (b) => delete item(b, 1).zeroPay, ['cartObject.cart.items[1].zeroPay']],
  ['total 0', (b) => b.cartObject.cart.items.forEach((i) => ((i.price = 0), (i.zeroPay = true))), ['cartObject.cart.items']],
  ['item title missing', (b) => delete item(b).title, ['cartObject.cart.items[0].title']],
  ['item description over 2000 characters', (b) => (item(b).description = 'd'.repeat(2001)), ['cartObject.cart.items[0].description']],
  ['item url not a URL', (b) => (item(b).url = 'not a url'), ['cartObject.cart.items[0].url']],
  ['item image not http(s)', (b) => (item(b).image = 'ftp://store.example/t.png'), ['cartObject.cart.items[0].image']],
  ['item sku empty', (b) => (item(b).sku = ''), ['cartObject.cart.items[0].sku']],
  ['variant option without " : "', (b) => (item(b).variantOptions = ['Size : M', 'Color:Blue']), ['cartObject.cart.items[0].variantOptions[1]']],
  ['variant option with an empty value', (b) => (item(b).variantOptions = ['Size : ']), ['cartObject.cart.items[0].variantOptions[0]']],
  ['51 variant options', (b) => (item(b).variantOptions = Array(51).fill('Size : M')), ['cartObject.cart.items[0].variantOptions']],
  ['unknown item field', (b) => (item(b).weight = 3), ['cartObject.cart.items[0].weight']],
  ['extra missing', (b) => delete (b.cartObject.cart as Partial<Body['cartObject']['cart']>).extra, ['cartObject.cart.extra']],
  ['extra value not a string', (b) => (b.cartObject.cart.extra.orderRef = 42), ['cartObject.cart.extra.orderRef']],
  ['extra key not an identifier', (b) => (b.cartObject.cart.extra['order.ref'] = { id: 1 }), ['cartObject.cart.extra["order.ref"]']],
  [
    'extra with 51 keys',
    (b) => (b.cartObject.cart.extra = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))),
    ['cartObject.cart.extra'],
  ],
  ['extra value over 255 characters', (b) => (b.cartObject.cart.extra.orderRef = 'x'.repeat(256)), ['cartObject.cart.extra.orderRef']],
  ['successUrl missing', (b) => delete b.cartObject.cart.merchantUrls.successUrl, ['cartObject.cart.merchantUrls.successUrl']],
  ['failureUrl a javascript: URL', (b) => (b.cartObject.cart.merchantUrls.failureUrl = 'javascript:alert(1)'), ['cartObject.cart.merchantUrls.failureUrl']],
  ['unknown cart field', (b) => (b.cartObject.cart.total = 4498), ['cartObject.cart.total']],
];

describe('create-cart validation: every rule, by exact JSON path', () => {
  const stack = useTestStack({ RATE_LIMIT_PER_CLIENT: '100000', RATE_LIMIT_PER_PLATFORM_CLIENT: '100000', RATE_LIMIT_PER_PLATFORM: '100000' });
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant()).platformUuid;
  });

  it('accepts the unchanged three-item request (the table below changes one thing each)', async () => {
    expect(
      (
        await postCart(
          stack.apiUrl,
          requestWith(platformUuid, () => {}),
        )
      ).status,
    ).toBe(200);
  });

  it.each(CASES)('%s → 400 VALIDATION_ERROR', async (_what, change, paths) => {
    const res = await postCart(stack.apiUrl, requestWith(platformUuid, change));
    const body = (await res.json()) as { code: string; errors: Array<{ path: string; message: string }>; requestId: string };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e) => e.path)).toEqual(paths);
    for (const e of body.errors) expect(e.message).not.toMatch(/^Invalid input/);
  });

  it('says "is required" for a missing field and names an unknown one', async () => {
    const res = await postCart(
      stack.apiUrl,
      requestWith(platformUuid, (b) => (delete item(b).title, (item(b).colour = 'red'))),
    );
    const body = (await res.json()) as { errors: unknown[] };
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: 'cartObject.cart.items[0].title', message: 'is required' },
        { path: 'cartObject.cart.items[0].colour', message: 'is not a known field' },
      ]),
    );
  });

  it('lists every bad field of one request, zeroPay included when the item is otherwise wrong', async () => {
    const res = await postCart(
      stack.apiUrl,
      requestWith(platformUuid, (b) => {
        b.cartObject.store.url = 'http://store.example';
        b.cartObject.cart.currency = 'EURO';
        delete item(b, 2).title;
        item(b, 2).price = 5;
        item(b, 1).quantity = -2;
      }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ path: string }> };
    expect(body.errors.map((e) => e.path).sort()).toEqual(
      [
        'cartObject.store.url',
        'cartObject.cart.currency',
        'cartObject.cart.items[1].quantity',
        'cartObject.cart.items[2].title',
        'cartObject.cart.items[2].zeroPay',
      ].sort(),
    );
  });

  it('refuses "__proto__" as an extra key instead of silently dropping it', async () => {
    const text = JSON.stringify(validCartRequest(platformUuid)).replace('"extra":{', '"extra":{"__proto__":"x",');
    const res = await postCart(stack.apiUrl, text);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(['cartObject.cart.extra.__proto__']);
  });

  it('answers 422 UNKNOWN_PLATFORM for a platformUuid of no merchant, an inactive one, or one of the other environment', async () => {
    const inactive = await stack.createMerchant();
    await stack.db`update merchants set status = 'inactive' where platform_uuid = ${inactive.platformUuid}`;
    const production = await registerMerchant(stack.db, stack.config.keyring, {
      name: 'Live',
      environment: 'production',
      webhookUrl: 'https://93.184.216.34/hooks',
    });
    for (const uuid of [randomUUID(), inactive.platformUuid, production.platformUuid]) {
      const res = await postCart(stack.apiUrl, validCartRequest(uuid) satisfies CreateCartRequest);
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ code: 'UNKNOWN_PLATFORM', errors: [{ path: 'cartObject.store.platformUuid' }] });
      expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${uuid}`).toEqual([{ n: 0 }]);
    }
  });

  it('creates nothing for any rejected request', async () => {
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 1 }]);
  });
});
