import { html } from 'hono/html';
import { describe, expect, it } from 'vitest';
import { cookieDifferences, HEADER_BASELINES, headerDifferences, PAGE_VARIANTS } from '../../core/integrity/page-variants.js';
import { inventoryLineOf, loadInventory, sri384 } from '../../core/integrity/inventory.js';
import { loadDifferences, pageLoads, type ReceivedLoad } from '../../core/integrity/page-scan.js';
import { assetPath, servedAssets, servedPaymentPageFiles } from '../../web/assets.js';
import { layout, messagePage } from '../../web/checkout/views/layout.js';

/**
 * The payment-page inventory (core/integrity/payment-page-inventory.json, PCI DSS 6.4.3) against what
 * the page serves: a changed asset without its new line fails here, before any review; the page walk
 * (test/integration/page-integrity-walk.test.ts) does the same for what each page variant really loads.
 */
const inventory = loadInventory();
const served = new Map(servedPaymentPageFiles().map(({ name, body }) => [name, body]));

describe('the payment-page inventory', () => {
  it.each(inventory.assets.map((line) => [line.name, line] as const))(
    "%s: its sha384 is the served bytes' (else run npm run -s integrity -- inventory and have the change approved)",
    (name, line) => {
      expect(served.has(name), `${name} is not served by web/assets.ts`).toBe(true);
      expect(line.sha384).toBe(sri384(served.get(name)!));
    },
  );

  it("lists every script and stylesheet the payment page shell loads, each with an integrity attribute that is the bytes'", async () => {
    const pages = [
      await layout({ locale: 'en', title: 't', body: html`<main>x</main>`, brandColour: '#635bff' }),
      await messagePage({ locale: 'ar', title: 'x', message: 'y' }),
      await layout({ locale: 'en', title: 't', body: html`<main>x</main>`, embedded: true }),
    ];
    for (const page of pages) {
      const loads = pageLoads(String(page));
      expect(loads.map((l) => l.kind).sort()).toEqual(expect.arrayContaining(['script', 'script', 'stylesheet']));
      const received: ReceivedLoad[] = loads.map((load) => {
        const name = servedAssets().find((asset) => assetPath(asset.name as never) === load.path)?.name;
        return { ...load, received: name ? sri384(served.get(name)!) : load.integrity };
      });
      expect(loadDifferences(inventory, received)).toEqual([]);
    }
  });

  it('names a generated brand stylesheet by its rule, and nothing else outside its lines', () => {
    expect(inventoryLineOf(inventory, '/assets/brand.635bff.css')).toHaveProperty('family');
    expect(inventoryLineOf(inventory, '/assets/brand.635bff.css.js')).toBeUndefined();
    expect(inventoryLineOf(inventory, '/assets/dashboard.0123456789ab.js')).toBeUndefined();
    expect(inventoryLineOf(inventory, `${assetPath('checkout.js')}`)).toHaveProperty('file.name', 'checkout.js');
  });
});

describe('what a page loaded, against the inventory', () => {
  const checkout = served.get('checkout.js')!;
  const good: ReceivedLoad = { kind: 'script', path: assetPath('checkout.js'), integrity: sri384(checkout), received: sri384(checkout) };

  it('finds nothing when the bytes, the attribute and the inventory agree', () => {
    expect(loadDifferences(inventory, [good])).toEqual([]);
  });

  it('finds one changed byte, an un-inventoried script, a missing attribute and an inline script', () => {
    const tampered = Buffer.from(checkout);
    tampered[10] = tampered[10]! ^ 1;
    expect(loadDifferences(inventory, [{ ...good, received: sri384(tampered) }]).join('\n')).toMatch(/checkout\..*received sha384-.*inventory sha384-/);
    expect(loadDifferences(inventory, [{ ...good, path: '/assets/skimmer.0123456789ab.js' }])).toEqual([
      '/assets/skimmer.0123456789ab.js: not in the inventory',
    ]);
    expect(loadDifferences(inventory, [{ ...good, path: 'https://cdn.example/x.js', received: null }])).toEqual([
      'https://cdn.example/x.js: not in the inventory',
    ]);
    expect(loadDifferences(inventory, [{ ...good, integrity: null }]).join()).toMatch(/no integrity attribute/);
    expect(
      loadDifferences(
        inventory,
        pageLoads('<script>alert(1)</script>').map((l) => ({ ...l, received: null })),
      ),
    ).toEqual(['an inline script, which the inventory cannot list']);
  });

  it('compares a generated file with the hash recorded when it was made', () => {
    const path = '/assets/brand.635bff.css';
    const load: ReceivedLoad = { kind: 'stylesheet', path, integrity: sri384('a'), received: sri384('a') };
    expect(loadDifferences(inventory, [load], new Map([[path, sri384('a')]]))).toEqual([]);
    expect(loadDifferences(inventory, [load], new Map([[path, sri384('b')]])).join()).toMatch(/brand\.635bff\.css: received/);
  });
});

describe('the header baseline', () => {
  const received = {
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self' https://shop.example; frame-ancestors 'none'; base-uri 'none'; report-uri /csp-reports; report-to csp-endpoint",
    ...HEADER_BASELINES.redirect.headers,
    'strict-transport-security': 'max-age=63072000; includeSubDomains',
  };

  it('accepts the page as approved, a merchant return origin in form-action included', () => {
    expect(headerDifferences(HEADER_BASELINES.redirect, received, { hsts: true, reportingApi: true })).toEqual([]);
  });

  it('finds frame-ancestors dropped, a header weakened, a directive added and HSTS missing', () => {
    const csp = received['content-security-policy']
      .replace("frame-ancestors 'none'; ", '')
      .replace("script-src 'self'", "script-src 'self' https://cdn.example");
    expect(
      headerDifferences(
        HEADER_BASELINES.redirect,
        { ...received, 'content-security-policy': `${csp}; worker-src *`, 'x-frame-options': null, 'strict-transport-security': null },
        { hsts: true, reportingApi: true },
      ),
    ).toEqual([
      `CSP script-src: expected "'self'", received "'self' https://cdn.example"`,
      `CSP frame-ancestors: expected "'none'", received nothing`,
      'CSP worker-src: not in the baseline ("*")',
      'x-frame-options: expected "DENY", received nothing',
      'strict-transport-security missing',
    ]);
  });

  it('expects no report-to, Reporting-Endpoints or Integrity-Policy endpoint over plain HTTP, where browsers cannot report to them', () => {
    const http = {
      ...received,
      'content-security-policy': received['content-security-policy'].replace('; report-to csp-endpoint', ''),
      'reporting-endpoints': null,
      'integrity-policy': 'blocked-destinations=(script)',
    };
    expect(headerDifferences(HEADER_BASELINES.redirect, http, { hsts: false, reportingApi: false })).toEqual([]);
    expect(headerDifferences(HEADER_BASELINES.redirect, received, { hsts: false, reportingApi: false })).toEqual([
      'CSP report-to: not in the baseline ("csp-endpoint")',
      'reporting-endpoints: expected nothing, received "csp-endpoint="/csp-reports""',
      'integrity-policy: expected "blocked-destinations=(script)", received "blocked-destinations=(script), endpoints=(csp-endpoint)"',
    ]);
  });

  it('finds a cookie without its flags', () => {
    expect(cookieDifferences(['a=1; Path=/; HttpOnly; Secure; SameSite=Lax'], { secure: true })).toEqual([]);
    expect(cookieDifferences(['b=2; Path=/'], { secure: true })).toEqual([
      'cookie b: not HttpOnly',
      'cookie b: not Secure',
      'cookie b: no SameSite=Lax or Strict',
    ]);
  });

  it('accepts the embedded page framed by host sources and without X-Frame-Options, and nothing wider', () => {
    const framedBy = (sources: string) => ({
      ...received,
      'content-security-policy': received['content-security-policy'].replace("frame-ancestors 'none'", `frame-ancestors ${sources}`),
      'x-frame-options': null,
    });
    const embedded = (r: Record<string, string | null>) => headerDifferences(HEADER_BASELINES.embedded, r, { hsts: true, reportingApi: true });
    expect(embedded(framedBy('shop.example *.shop.example'))).toEqual([]);
    expect(embedded(framedBy('shop.example:* *.shop.example:* localhost:* 127.0.0.1:*'))).toEqual([]);
    for (const wide of ['*', "'none'", 'https:', 'https://shop.example', 'shop.example *', 'shop.example/path'])
      expect(embedded(framedBy(wide)).join(), wide).toMatch(/^CSP frame-ancestors: expected a value matching/);
    expect(embedded({ ...framedBy('shop.example'), 'x-frame-options': 'DENY' })).toEqual(['x-frame-options: expected nothing, received "DENY"']);
  });

  it("accepts the embedded page's partitioned third-party cookies there alone, with all three flags", () => {
    const chips = 'checkout_csrf=n; Max-Age=7200; Path=/; HttpOnly; Secure; SameSite=None; Partitioned';
    expect(cookieDifferences([chips], { secure: false, framing: 'embedded' })).toEqual([]);
    expect(cookieDifferences(['a=1; Path=/; HttpOnly; SameSite=Strict'], { secure: false, framing: 'embedded' })).toEqual([]);
    expect(cookieDifferences([chips], { secure: false, framing: 'redirect' })).toEqual(['cookie checkout_csrf: no SameSite=Lax or Strict']);
    expect(cookieDifferences(['b=1; Path=/; HttpOnly; SameSite=None; Partitioned'], { secure: false, framing: 'embedded' })).toEqual(['cookie b: not Secure']);
    expect(cookieDifferences(['c=1; Path=/; HttpOnly; Secure; SameSite=None'], { secure: false, framing: 'embedded' })).toEqual([
      'cookie c: SameSite=None but not Partitioned',
    ]);
    expect(cookieDifferences(['d=1; Path=/; HttpOnly; Secure'], { secure: false, framing: 'embedded' })).toEqual([
      'cookie d: no SameSite=Lax or Strict, nor SameSite=None partitioned',
    ]);
  });

  it('gives every page variant a baseline and a unique id', () => {
    expect(new Set(PAGE_VARIANTS.map((v) => v.id)).size).toBe(PAGE_VARIANTS.length);
    for (const variant of PAGE_VARIANTS) expect(HEADER_BASELINES[variant.framing]).toBeDefined();
  });
});
