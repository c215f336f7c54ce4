import countries from 'i18n-iso-countries';
import fc from 'fast-check';
import { PAYABLE_CURRENCIES, SESSION_MINUTES, type CreateCartRequest, type Item } from '../../core/checkout/cart-schema.js';
import { SANDBOX_CURRENCIES, smallestChargeable } from '../../core/checkout/processor-amounts.js';

// Currencies the processor charges (a payable currency it does not is refused with CURRENCY_NOT_SUPPORTED).
const CURRENCIES = PAYABLE_CURRENCIES.filter((c) => SANDBOX_CURRENCIES.has(c));
const COUNTRIES = [...Object.keys(countries.getAlpha2Codes()), ...Object.keys(countries.getAlpha3Codes())];

/** Non-blank text of any script, emoji included, without control characters. */
const text = (maxLength = 40) =>
  // eslint-disable-next-line no-control-regex -- the generator must produce text without control characters, which the API refuses.
  fc.string({ unit: 'grapheme', minLength: 1, maxLength }).filter((s) => s.trim().length > 0 && !/[\u0000-\u001f\u007f]/.test(s));

// Hyphens in the 3rd and 4th place are reserved for IDNA ("xn--…" must be valid punycode), and URL
// parsing rightly refuses a label like "xn--a": not a valid cart URL, so not generated as one.
const label = fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,14}[a-z0-9])?$/).filter((l) => l.slice(2, 4) !== '--');
const host = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('example', 'com', 'shop', 'co.uk'))
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);
const pathPart = fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), { maxLength: 3 }).map((parts) => parts.map((p) => `/${p}`).join(''));
const httpsUrl = fc.tuple(host, pathPart).map(([h, p]) => `https://${h}${p}`);
const httpUrl = fc.tuple(fc.constantFrom('http', 'https'), host, pathPart).map(([s, h, p]) => `${s}://${h}${p}`);
const variantOption = fc
  .tuple(fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,10}[A-Za-z]$/), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 :/.]{0,10}[A-Za-z0-9]$/))
  .map(([k, v]) => `${k} : ${v}`);

const item: fc.Arbitrary<Item> = fc
  .record(
    {
      title: text(),
      description: text(200),
      price: fc.integer({ min: 0, max: 10_000_000 }),
      quantity: fc.integer({ min: 1, max: 1_000 }),
      url: httpUrl,
      image: httpUrl,
      sku: text(),
      productId: text(),
      variantId: text(),
      variantOptions: fc.array(variantOption, { maxLength: 4 }),
    },
    { requiredKeys: ['title', 'description', 'price', 'quantity', 'url', 'image'] },
  )
  .map((i) => ({ ...i, zeroPay: i.price === 0 }));

/** Prices in multiples of the smallest amount the processor charges in `currency` (KWD 10), so every total is chargeable. */
const chargeableIn = (currency: string, items: Item[]): Item[] =>
  items.map((i) => ({ ...i, price: i.price * smallestChargeable(SANDBOX_CURRENCIES, currency)! }));

/** Any cart the API must accept, for the given merchant. */
export function validCartArbitrary(platformUuid: string): fc.Arbitrary<CreateCartRequest> {
  return fc
    .record({
      store: fc.record(
        { platformUuid: fc.constant(platformUuid), name: text(), url: httpsUrl, logo: httpsUrl },
        { requiredKeys: ['platformUuid', 'name', 'url'] },
      ),
      cart: fc.record(
        {
          currency: fc.constantFrom(...CURRENCIES),
          country: fc.constantFrom(...COUNTRIES),
          items: fc.array(item, { minLength: 1, maxLength: 5 }).filter((items) => items.some((i) => i.price > 0)),
          extra: fc.dictionary(
            text(20).filter((k) => k !== '__proto__'),
            fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
            { maxKeys: 8 },
          ),
          merchantUrls: fc.record({ successUrl: httpUrl, failureUrl: httpUrl }),
          sessionMinutes: fc.integer({ min: SESSION_MINUTES.min, max: SESSION_MINUTES.max }),
        },
        { requiredKeys: ['currency', 'country', 'items', 'extra', 'merchantUrls'] },
      ),
    })
    .map((cartObject) => ({
      cartObject: { ...cartObject, cart: { ...cartObject.cart, items: chargeableIn(cartObject.cart.currency, cartObject.cart.items) } },
    }));
}
