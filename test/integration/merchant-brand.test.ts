import { describe, expect, it } from 'vitest';
import { brandPalette } from '../../core/brand/brand-colours.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantCli } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';

type Answer = { brandColour: string | null; brandPalette: { accent: string; adjusted: boolean; explanation: string } | null };

describe('a merchant’s brand colour: operator API, CLI, and the page', () => {
  const stack = useTestStack();
  const cli = merchantCli(stack);
  const putBrand = (platformUuid: string, body: unknown) =>
    fetch(`${stack.apiUrl}/operator/merchants/${platformUuid}/brand`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const pageOf = async (platformUuid: string) => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    return (await fetch(`${stack.checkoutUrl}/?token=${cartId}`)).text();
  };

  it('is set by the operator API, answered with the colours the page will use and why, and linked from the page', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Yellow Store' });
    expect(await pageOf(platformUuid)).not.toContain('/assets/brand.');

    const res = await putBrand(platformUuid, { brandColour: '#FFEB3B' });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    const expected = brandPalette('#ffeb3b');
    expect(answer.brandColour).toBe('#ffeb3b');
    expect(answer.brandPalette).toMatchObject({ accent: expected.accent, adjusted: true });
    expect(answer.brandPalette!.explanation).toContain(`darkens it to ${expected.accent}`);

    const html = await pageOf(platformUuid);
    // With its SRI hash, as every stylesheet of the payment page (issue 52).
    expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/brand\.ffeb3b\.css" integrity="sha384-[A-Za-z0-9+/=]+" \/>/);
    const css = await fetch(`${stack.checkoutUrl}/assets/brand.ffeb3b.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await css.text()).toContain(`--accent:${expected.accent};`);

    const cleared = await putBrand(platformUuid, { brandColour: null });
    expect(((await cleared.json()) as Answer).brandPalette).toBeNull();
    expect(await pageOf(platformUuid)).not.toContain('/assets/brand.');
  });

  it('refuses what is not a hex colour, naming the field and the fix; an unknown merchant is 404', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Typo Store' });
    for (const bad of ['yellow', '#ffeb3b;}body{color:red', 42]) {
      const res = await putBrand(platformUuid, { brandColour: bad });
      expect(res.status, String(bad)).toBe(400);
      const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.errors[0]!.path).toBe('brandColour');
    }
    expect((await putBrand('00000000-0000-4000-8000-000000000000', { brandColour: '#123456' })).status).toBe(404);
    expect((await stack.db`select brand_colour from merchants where platform_uuid = ${platformUuid}`)[0]!.brand_colour).toBeNull();
  });

  it('is set and cleared by the CLI', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'CLI Brand Store' });
    const set = await cli('set-brand-colour', '--platform-uuid', platformUuid, '--colour', '#1557b0');
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ brandColour: '#1557b0', brandPalette: { accent: '#1557b0', adjusted: false } });
    const off = await cli('set-brand-colour', '--platform-uuid', platformUuid, '--off');
    expect(off.json).toMatchObject({ brandColour: null, brandPalette: null });
    expect((await cli('set-brand-colour', '--platform-uuid', platformUuid)).code).not.toBe(0);
  });
});
