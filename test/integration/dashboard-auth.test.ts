import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { revokeApiKey, rotateApiKey } from '../../core/merchants/api-keys.js';
import { deactivateMerchant } from '../../core/merchants/merchants.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantCli } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

describe('dashboard sign-in and sessions', () => {
  // One trusted hop: each client says its own address, so each test's sign-ins are counted apart.
  // Limit windows are aligned to the clock: with the default 60 s, the four attempts of the limit test
  // straddled a window's end (two test runs side by side) and the fourth was let in. An hour makes that
  // a one-in-thousands chance instead of one in tens.
  const stack = useTestStack({ TRUST_PROXY: '1', RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: '3', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  const client = () => dashboardClient(stack.checkoutUrl);

  it('signs a merchant in with its API key into a cookie that holds no key, and shows its pages', async () => {
    const merchant = await stack.createMerchant({ name: 'Signed <b>In</b> Store' });
    const browser = client();
    const signedIn = await browser.signIn(merchant.apiKey);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/dashboard/orders');
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    expect(cookie).not.toContain(merchant.apiKey.slice('sk_sandbox_'.length, 20));
    // 32 random bytes; the table keeps only their SHA-256.
    const value = browser.jar.get('dashboard_session')!;
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await stack.db<{ role: string; platform_uuid: string }[]>`
      select role, platform_uuid from dashboard_sessions where token_hash = ${createHash('sha256').update(value).digest()}`;
    expect(row).toEqual({ role: 'owner', platform_uuid: merchant.platformUuid });

    const page = await browser.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Signed &lt;b&gt;In&lt;/b&gt; Store');
    expect(page.body).not.toContain('<b>In</b>');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses a wrong key, a key of the other environment and a revoked key, and sets no session', async () => {
    const merchant = await stack.createMerchant();
    await revokeApiKey(stack.db, merchant.platformUuid);
    for (const apiKey of [merchant.apiKey, 'sk_sandbox_' + 'A'.repeat(43), merchant.apiKey.replace('sk_sandbox_', 'sk_production_')]) {
      const browser = client();
      const refused = await browser.signIn(apiKey);
      expect(refused.status).toBe(401);
      expect(refused.body).toContain('This is not an active sandbox API key');
      expect(refused.body).toContain('aria-invalid="true"');
      expect(browser.jar.has('dashboard_session')).toBe(false);
      expect((await browser.get('/dashboard/webhooks')).location).toBe('/dashboard/sign-in');
    }
  });

  it('ends the session on the next request once the key is rotated or revoked, or the merchant deactivated', async () => {
    for (const endKey of [rotateApiKey, revokeApiKey, deactivateMerchant]) {
      const merchant = await stack.createMerchant();
      const browser = client();
      expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
      expect((await browser.get('/dashboard/webhooks')).status).toBe(200);
      await endKey(stack.db, merchant.platformUuid);
      const after = await browser.get('/dashboard/webhooks');
      expect(after.status).toBe(303);
      expect(after.location).toBe('/dashboard/sign-in');
      expect(browser.jar.has('dashboard_session')).toBe(false);
    }
  });

  it('refuses a form without its token, or with a token from another browser, before doing anything', async () => {
    const merchant = await stack.createMerchant();
    const browser = client();
    await browser.signIn(merchant.apiKey);
    const before = await browser.get('/dashboard/webhooks');
    expect(before.status).toBe(200);

    const missing = await browser.post('/dashboard/webhooks/url', { csrf: '', webhookUrl: 'http://localhost:8/elsewhere' });
    expect(missing.status).toBe(403);
    const other = client();
    await other.get('/dashboard/sign-in');
    const lifted = /name="csrf" value="([^"]+)"/.exec((await other.get('/dashboard/sign-in')).body)![1]!;
    expect((await browser.post('/dashboard/webhooks/url', { csrf: lifted, webhookUrl: 'http://localhost:8/elsewhere' })).status).toBe(403);
    const [row] = await stack.db<{ url: string }[]>`select url from webhook_endpoints where platform_uuid = ${merchant.platformUuid}`;
    expect(row!.url).toBe('http://localhost:9/webhooks');

    const signIn = client();
    await signIn.get('/dashboard/sign-in');
    expect((await signIn.post('/dashboard/sign-in', { csrf: '', apiKey: merchant.apiKey })).status).toBe(403);
    expect(signIn.jar.has('dashboard_session')).toBe(false);
  });

  it('refuses a post from another origin', async () => {
    const merchant = await stack.createMerchant();
    const browser = client();
    await browser.signIn(merchant.apiKey);
    await browser.get('/dashboard/webhooks');
    const forged = await browser.post('/dashboard/webhooks/rotate-secret', {}, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
  });

  it('limits wrong sign-in attempts per client address, and still lets the right key or token in', async () => {
    const merchant = await stack.createMerchant();
    const browser = client();
    for (let i = 0; i < 3; i++) expect((await browser.signIn('sk_sandbox_wrong')).status).toBe(401);
    const limited = await browser.signIn('sk_sandbox_wrong');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(browser.jar.has('dashboard_session')).toBe(false);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);

    // The outside review's case: ten wrong operator tokens from an address, then the right one.
    const operator = client();
    for (let i = 0; i < 10; i++) expect([401, 429]).toContain((await operator.signInAsOperator('not-the-operator-token-at-all')).status);
    expect((await operator.signInAsOperator('not-the-operator-token-at-all')).status).toBe(429);
    const signedIn = await operator.signInAsOperator(stack.config.operatorToken!);
    expect(signedIn.status).toBe(303);
    expect((await operator.get('/dashboard/operator')).status).toBe(200);
  });

  it('ends the session at once on sign-out: the old cookie is refused, not valid for hours', async () => {
    const merchant = await stack.createMerchant();
    const browser = client();
    await browser.signIn(merchant.apiKey);
    const lifted = browser.jar.get('dashboard_session')!;
    expect((await browser.get('/dashboard/orders')).status).toBe(200);
    expect((await browser.post('/dashboard/sign-out')).location).toBe('/dashboard/sign-in');
    const replayed = client();
    replayed.jar.set('dashboard_session', lifted);
    expect((await replayed.get('/dashboard/orders')).location).toBe('/dashboard/sign-in');
  });

  it('signs an operator in with OPERATOR_TOKEN only, and keeps operators and merchants apart', async () => {
    const merchant = await stack.createMerchant({ name: 'Listed Store' });
    const wrong = client();
    expect((await wrong.signInAsOperator('not-the-operator-token-at-all')).status).toBe(401);
    expect((await wrong.get('/dashboard/operator')).location).toBe('/dashboard/sign-in/operator');

    const operator = client();
    const signedIn = await operator.signInAsOperator(stack.config.operatorToken!);
    expect(signedIn.location).toBe('/dashboard/operator');
    const list = await operator.get('/dashboard/operator');
    expect(list.status).toBe(200);
    expect(list.body).toContain(merchant.platformUuid);
    expect((await operator.get('/dashboard/webhooks')).location).toBe('/dashboard/sign-in');
    expect((await operator.get('/dashboard/insights')).location).toBe('/dashboard/sign-in');
    expect((await operator.get('/dashboard/orders/export.csv')).location).toBe('/dashboard/sign-in');
    expect((await operator.get('/dashboard/operator/insights/webhooks?days=30')).status).toBe(200);
    const badPeriod = await operator.get('/dashboard/operator/insights?days=365');
    expect(badPeriod.status).toBe(422);
    expect(badPeriod.body).toContain('days must be 1, 7 or 30');

    const shopkeeper = client();
    await shopkeeper.signIn(merchant.apiKey);
    expect((await shopkeeper.get('/dashboard/operator')).location).toBe('/dashboard/sign-in/operator');
    expect((await shopkeeper.get('/dashboard/operator/insights')).location).toBe('/dashboard/sign-in/operator');
    expect((await shopkeeper.get('/dashboard/insights/funnel?days=1')).status).toBe(200);
  });

  it('signs a merchant in with the link the CLI prints, until its key changes', async () => {
    const merchant = await stack.createMerchant({ name: 'Linked Store' });
    const printed = await merchantCli(stack)('dashboard-link', '--platform-uuid', merchant.platformUuid);
    expect(printed.code).toBe(0);
    const url = new URL(printed.json.url as string);
    expect(url.origin).toBe(stack.checkoutUrl);
    expect(Date.parse(printed.json.expiresAt as string) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const link = `${url.pathname}${url.search}`;

    const browser = client();
    const landing = await browser.get(link);
    expect(landing.status).toBe(200);
    expect(landing.body).toContain('Sign in as Linked Store');
    expect(browser.jar.has('dashboard_session')).toBe(false);
    const signedIn = await browser.post('/dashboard/link', { token: url.searchParams.get('token')! });
    expect(signedIn.location).toBe('/dashboard/orders');
    expect((await browser.get('/dashboard/webhooks')).status).toBe(200);

    const tampered = client();
    expect((await tampered.get(link.replace(merchant.platformUuid, (await stack.createMerchant()).platformUuid))).status).toBe(410);

    await rotateApiKey(stack.db, merchant.platformUuid);
    expect((await client().get(link)).status).toBe(410);
  });

  it("answers 404 for another merchant's order, its timeline, its refund and its events, as for no order at all", async () => {
    const owner = await stack.createMerchant();
    const driver = cartSessionDriver(stack, owner.platformUuid);
    const session = await driver.createSession();
    await driver.cancel(session);
    const cartId = session.cartId;
    const event = await waitFor(async () => (await stack.db<{ id: string }[]>`select id from webhook_events where cart_id = ${cartId}`)[0], {
      what: 'order_cancelled recorded',
    });
    const mine = client();
    await mine.signIn(owner.apiKey);
    expect((await mine.get(`/dashboard/orders/${cartId}`)).status).toBe(200);

    const stranger = await stack.createMerchant();
    const other = client();
    await other.signIn(stranger.apiKey);
    const page = await other.get(`/dashboard/orders/${cartId}`);
    expect(page.status).toBe(404);
    expect(page.body).not.toContain(cartId);
    expect((await other.get(`/dashboard/orders/${cartId}/timeline`)).status).toBe(404);
    expect((await other.get('/dashboard/orders/no-such-cart')).status).toBe(404);
    expect((await other.post(`/dashboard/orders/${cartId}/refunds`, { amount: '1.00' })).status).toBe(404);
    expect((await other.post(`/dashboard/events/${event.id}/replay`)).status).toBe(404);
    expect((await other.post(`/dashboard/orders/${cartId}/events/${event.id}/replay`)).status).toBe(404);
    expect((await mine.post(`/dashboard/orders/${cartId}/events/${event.id}/replay`)).status).toBe(200);
    const list = await other.get('/dashboard/orders');
    expect(list.status).toBe(200);
    expect(list.body).not.toContain(cartId);
  });

  it("lists and closes only the merchant's own payment links, and keeps operators out", async () => {
    const owner = await stack.createMerchant({ name: 'Link <Owner>' });
    const mine = client();
    await mine.signIn(owner.apiKey);
    const created = await mine.post('/dashboard/payment-links', {
      title: 'Poster <script>',
      amount: '12.50',
      currency: 'EUR',
      country: 'FR',
      storeUrl: 'https://store.example',
      image: '',
      successUrl: 'https://store.example/ok',
      failureUrl: 'https://store.example/ko',
      maxUses: '',
      expiresOn: '',
    });
    expect(created.status).toBe(201);
    expect(created.body).toContain('Poster &lt;script&gt;');
    const [link] = await stack.db<{ id: string }[]>`select id from payment_links where platform_uuid = ${owner.platformUuid}`;

    const other = client();
    await other.signIn((await stack.createMerchant()).apiKey);
    expect((await other.get('/dashboard/payment-links')).body).not.toContain(link!.id);
    expect((await other.post(`/dashboard/payment-links/${link!.id}/close`)).status).toBe(404);
    expect((await other.post('/dashboard/payment-links/not-a-link/close')).status).toBe(404);
    const [still] = await stack.db<{ active: boolean }[]>`select active from payment_links where id = ${link!.id}`;
    expect(still!.active).toBe(true);
    expect((await mine.post(`/dashboard/payment-links/${link!.id}/close`)).body).toContain('data-link-status="closed"');

    const operator = client();
    await operator.signInAsOperator(stack.config.operatorToken!);
    expect((await operator.get('/dashboard/payment-links')).location).toBe('/dashboard/sign-in');
  });

  it('refuses a refund of an unpaid order beside the form, and says why', async () => {
    const owner = await stack.createMerchant();
    const cartId = await createCartId(stack.apiUrl, validCartRequest(owner.platformUuid));
    const browser = client();
    await browser.signIn(owner.apiKey);
    await browser.get(`/dashboard/orders/${cartId}`);
    const refused = await browser.post(
      `/dashboard/orders/${cartId}/refunds`,
      { amount: '1.00', idempotencyKey: 'not-a-dashboard-key' },
      { 'HX-Request': 'true' },
    );
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('role="alert"');
    expect(refused.body).toMatch(/paid/);
    const badAmount = await browser.post(`/dashboard/orders/${cartId}/refunds`, { amount: '1.001' }, { 'HX-Request': 'true' });
    expect(badAmount.status).toBe(422);
    expect(badAmount.body).toContain('id="refund-amount-error"');
    expect(badAmount.body).toContain('EUR has 2 decimal places at most.');
    const [row] = await stack.db<{ count: number }[]>`select count(*)::int as count from refunds where cart_id = ${cartId}`;
    expect(row!.count).toBe(0);
  });

  it('lists only its own orders, newest first, filtered, a page at a time', async () => {
    const owner = await stack.createMerchant();
    const cartIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = validCartRequest(owner.platformUuid);
      body.cartObject.cart.extra = { orderRef: `ref-${i}` };
      cartIds.push(await createCartId(stack.apiUrl, body));
    }
    const browser = client();
    await browser.signIn(owner.apiKey);
    const first = await browser.get('/dashboard/orders?status=pending&limit=2');
    expect(first.status).toBe(200);
    const listed = (body: string) => [...body.matchAll(/href="\/dashboard\/orders\/([^"?]+)"/g)].map((m) => m[1]);
    expect(listed(first.body)).toEqual([cartIds[2], cartIds[1]]);
    const next = /href="(\/dashboard\/orders\?[^"]+)"/.exec(first.body)![1]!.replaceAll('&amp;', '&');
    expect(next).toContain('status=pending');
    expect(next).toContain('limit=2');
    const second = await browser.get(next, { 'HX-Request': 'true' });
    expect(second.body.startsWith('<div id="orders-view">')).toBe(true);
    expect(listed(second.body)).toEqual([cartIds[0]]);
    expect(second.body).not.toContain('Older orders');

    expect(listed((await browser.get('/dashboard/orders?extraKey=orderRef&extraValue=ref-1')).body)).toEqual([cartIds[1]]);
    expect(listed((await browser.get('/dashboard/orders?status=paid')).body)).toEqual([]);
    const bad = await browser.get('/dashboard/orders?extraKey=orderRef&from=yesterday');
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('id="filter-from-error"');
    expect(bad.body).toContain('id="filter-extraValue-error"');
  });
});
