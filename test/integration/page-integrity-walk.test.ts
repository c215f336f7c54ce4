import { beforeAll, describe, expect, it } from 'vitest';
import { recoveryUrl } from '../../core/checkout/recovery-token.js';
import { generatedAssetHashes } from '../../core/integrity/generated-assets.js';
import { loadInventory, sri384 } from '../../core/integrity/inventory.js';
import { pageDifferences, walkPaymentPages, type ReceivedPage } from '../../core/integrity/page-walk.js';
import { PAGE_VARIANTS } from '../../core/integrity/page-variants.js';
import { setMerchantBrandColour } from '../../core/merchants/merchants.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * Every payment page variant (core/integrity/page-variants.ts), walked over HTTP as a browser would
 * through a canary merchant's sandbox carts, against the inventory and the header baseline: a page that
 * loads anything un-inventoried, or sends a header off its baseline, fails here (PCI DSS 6.4.3, 11.6.1).
 */
describe('the payment pages as a browser receives them', () => {
  // The 3-D Secure return link is built from CHECKOUT_BASE_URL: it must lead to this page.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true });
  let merchant: CreatedMerchant;
  let pages: ReceivedPage[];

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Integrity Canary' });
    await setMerchantBrandColour(stack.db, merchant.platformUuid, '#0a7d4f');
    const link = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cartObject: validCartRequest(merchant.platformUuid).cartObject }),
    });
    expect(link.status).toBe(201);
    const { id } = (await link.json()) as { id: string };
    pages = await walkPaymentPages({
      checkoutUrl: stack.checkoutUrl,
      createCart: () => createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid)),
      sandboxOtp: stack.config.sandboxOtp,
      recoveryLinkOf: (cartId) => recoveryUrl(stack.config, cartId, new Date()),
      paymentLinkPath: `/l/${id}`,
    });
  }, 120_000);

  it("reaches every variant, each loading our two scripts (the embedded page a third), and each step the merchant's generated brand stylesheet", () => {
    expect(new Set(pages.map((p) => p.variant))).toEqual(new Set(PAGE_VARIANTS.map((v) => v.id)));
    for (const page of pages) {
      const embedded = page.variant.startsWith('embedded-');
      expect(page.loads.filter((l) => l.kind === 'script').length, page.variant).toBe(embedded ? 3 : 2);
      if (/^(embedded-)?(contact|code|card|payment-link)/.test(page.variant))
        expect(
          page.loads.some((l) => l.path === '/assets/brand.0a7d4f.css'),
          page.variant,
        ).toBe(true);
    }
    expect(pages.find((p) => p.variant === 'ended')!.status).toBe(410);
    expect(pages.find((p) => p.variant === 'not-found')!.status).toBe(404);
    expect(pages.find((p) => p.variant === '3ds-challenge')!.url).toMatch(/\/3ds\/sandbox-challenge$/);
    const embedded = pages.find((p) => p.variant === 'embedded-card')!;
    expect(embedded.headers['content-security-policy']).toContain('frame-ancestors localhost:* 127.0.0.1:*;');
    expect(embedded.headers['x-frame-options']).toBeNull();
    const framedCsrf = pages.find((p) => p.variant === 'embedded-contact')!.setCookies.find((c) => c.startsWith('checkout_csrf'));
    expect(framedCsrf).toMatch(/; Secure/);
    expect(framedCsrf).toMatch(/; SameSite=None/);
    expect(framedCsrf).toMatch(/; Partitioned/);
  });

  it('finds no difference from the inventory and the header baseline on any of them', async () => {
    const approved = { inventory: loadInventory(), generatedHashes: await generatedAssetHashes(stack.db), production: false };
    expect(pages.map((page) => ({ variant: page.variant, differences: pageDifferences(page, approved) }))).toEqual(
      pages.map((page) => ({ variant: page.variant, differences: [] })),
    );
  });

  it("records the generated brand stylesheet's hash when it is made", async () => {
    const recorded = await generatedAssetHashes(stack.db);
    const css = await (await fetch(`${stack.checkoutUrl}/assets/brand.0a7d4f.css`)).text();
    expect(recorded.get('/assets/brand.0a7d4f.css')).toBe(sri384(css));
  });

  it('keeps no cart token in what it records', () => {
    for (const page of pages) expect(page.url).not.toContain('token');
  });
});
