import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { OrderData } from '../../core/checkout/order-model.js';
import type { PaymentLink } from '../../core/links/payment-link-schema.js';
import { insightSummary } from '../../core/insights/insights.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import type { ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';

/** Payment links through the merchant API, and their visits on the checkout page (`/l/<id>`). */
describe('payment links', () => {
  const stack = useTestStack({ RATE_LIMIT_LINK_VISITS_PER_LINK: '5', TRUST_PROXY: '1' }, { checkoutAtItsBaseUrl: true });

  function linksApi(merchant: CreatedMerchant) {
    const call = async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as T };
    };
    return {
      create: (body: unknown) => call<PaymentLink & ErrorBody>('POST', '', body),
      list: () => call<{ data: PaymentLink[] }>('GET', ''),
      get: (id: string) => call<PaymentLink & ErrorBody>('GET', `/${id}`),
      close: (id: string, body: unknown = { active: false }) => call<PaymentLink & ErrorBody>('PATCH', `/${id}`, body),
    };
  }

  /** A visit as a customer's browser makes it, from its own address (TRUST_PROXY 1 reads X-Forwarded-For). */
  const visit = (url: string, address = '203.0.113.7') => fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': address } });
  const tokenOf = (res: Response) => new URL(res.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;

  it('creates, lists, gets and closes a link, with its url on the checkout page', async () => {
    const merchant = await stack.createMerchant();
    const api = linksApi(merchant);
    const { cartObject } = validCartRequest(merchant.platformUuid);
    const created = await api.create({ cartObject, maxUses: 3, expiresAt: '2099-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ active: true, status: 'open', cartObject, maxUses: 3, expiresAt: '2099-01-01T00:00:00.000Z', visits: 0, paid: 0 });
    const { id, url } = created.json;
    expect(url).toBe(`${stack.config.checkoutBaseUrl}/l/${id}`);

    expect((await api.list()).json.data.map((l) => l.id)).toEqual([id]);
    expect((await api.get(id)).json).toEqual(created.json);

    const closed = await api.close(id);
    expect(closed).toMatchObject({ status: 200, json: { id, active: false, status: 'closed', closedAt: expect.any(String) } });
    expect((await api.close(id)).json.closedAt).toBe(closed.json.closedAt);
    // Another merchant's link is not found, like an unknown one.
    const stranger = linksApi(await stack.createMerchant());
    expect((await stranger.get(id)).json).toMatchObject({ code: 'NOT_FOUND', errors: [{ path: 'id' }] });
    expect((await stranger.close(id)).status).toBe(404);
  });

  it('refuses bad input in the error envelope, naming each field and the fix', async () => {
    const merchant = await stack.createMerchant();
    const api = linksApi(merchant);
    const { cartObject } = validCartRequest(merchant.platformUuid);

    const bad = await api.create({ cartObject: { ...cartObject, cart: { ...cartObject.cart, currency: 'EURO' } }, maxUses: 0, colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('VALIDATION_ERROR');
    expect(bad.json.errors.map((e) => e.path).sort()).toEqual(['cartObject.cart.currency', 'colour', 'maxUses']);
    expect(bad.json.errors.find((e) => e.path === 'maxUses')!.message).toMatch(/at least 1.*leave it out/);

    const past = await api.create({ cartObject, expiresAt: '2001-01-01T00:00:00Z' });
    expect(past.json).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'expiresAt', message: expect.stringMatching(/future/) }] });

    const other = await api.create({ cartObject: { ...cartObject, store: { ...cartObject.store, platformUuid: '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80' } } });
    expect(other.json).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'cartObject.store.platformUuid' }] });

    const { json: created } = await api.create({ cartObject });
    const reopen = await api.close(created.id, { active: true });
    expect(reopen.json).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'active', message: expect.stringMatching(/create a new link/) }] });
    expect((await api.get('pl_nope')).status).toBe(404);
    expect((await api.list()).json.data).toHaveLength(1);
  });

  it('mints a fresh session per visit, through create-cart, marked with the link and the API key', async () => {
    const merchant = await stack.createMerchant();
    const { json: link } = await linksApi(merchant).create({ cartObject: validCartRequest(merchant.platformUuid).cartObject });
    const first = await visit(link.url);
    const second = await visit(link.url);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(first.headers.get('location')).toMatch(/^\/\?token=[A-Za-z0-9_-]+$/);
    const [a, b] = [tokenOf(first), tokenOf(second)];
    expect(a).not.toBe(b);

    const page = await fetch(`${stack.checkoutUrl}/?token=${a}`);
    expect(page.status).toBe(200);
    const order = (await (
      await fetch(`${stack.apiUrl}/v2/merchant/orders/${a}`, { headers: { authorization: `Bearer ${merchant.apiKey}` } })
    ).json()) as OrderData;
    expect(order).toMatchObject({ cartId: a, status: 'pending', createdWith: 'api_key', paymentLinkId: link.id, amount: 4498 });
    expect((await linksApi(merchant).get(link.id)).json).toMatchObject({ visits: 2, paid: 0, status: 'open' });
  });

  it('answers 410 in the customer’s language to a closed link and to an expired one, 404 to an unknown one', async () => {
    const merchant = await stack.createMerchant();
    const api = linksApi(merchant);
    const { cartObject } = validCartRequest(merchant.platformUuid);
    const { json: closed } = await api.create({ cartObject });
    await api.close(closed.id);
    const gone = await visit(closed.url);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain('This payment link is no longer available');
    const french = await fetch(closed.url, { headers: { 'accept-language': 'fr-FR', 'x-forwarded-for': '203.0.113.8' } });
    expect(french.status).toBe(410);
    expect(await french.text()).toContain('Ce lien de paiement n’est plus disponible');

    const { json: expiring } = await api.create({ cartObject, expiresAt: new Date(Date.now() + 1500).toISOString() });
    expect((await visit(expiring.url)).status).toBe(303);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await visit(expiring.url)).status).toBe(410);
    expect((await api.get(expiring.id)).json).toMatchObject({ status: 'expired', visits: 1 });

    expect((await visit(`${stack.checkoutUrl}/l/pl_AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
  });

  it('counts paid sessions against maxUses, not visits', async () => {
    const merchant = await stack.createMerchant();
    const api = linksApi(merchant);
    const { json: link } = await api.create({ cartObject: validCartRequest(merchant.platformUuid).cartObject, maxUses: 1 });
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = (cartId: string) => ({ cartId, handle: driver.handleOf(cartId) });

    const unpaid = session(tokenOf(await visit(link.url)));
    await driver.cancel(unpaid);
    const paying = session(tokenOf(await visit(link.url)));
    expect((await api.get(link.id)).json).toMatchObject({ visits: 2, paid: 0, status: 'open' });

    await driver.sendCode(paying);
    await driver.verify(paying, await driver.sentCode(paying));
    expect((await driver.pay(paying, SANDBOX_CARDS.approved)).status).toBe('paid');
    expect((await api.get(link.id)).json).toMatchObject({ visits: 2, paid: 1, status: 'used_up' });
    expect((await visit(link.url)).status).toBe(410);
  });

  it('counts link sessions and what the paid ones charged in the insights, apart from the merchant’s other sessions', async () => {
    const merchant = await stack.createMerchant();
    const { json: link } = await linksApi(merchant).create({ cartObject: validCartRequest(merchant.platformUuid).cartObject });
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const cartId = tokenOf(await visit(link.url));
    const paying = { cartId, handle: driver.handleOf(cartId) };
    await visit(link.url);
    await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    await driver.sendCode(paying);
    await driver.verify(paying, await driver.sentCode(paying));
    expect((await driver.pay(paying, SANDBOX_CARDS.approved)).status).toBe('paid');

    const summary = await insightSummary(stack.db, { merchant: { platformUuid: merchant.platformUuid, environment: 'sandbox' }, days: 1 });
    expect(summary).toMatchObject({ sessions: 3, paid: 1, links: { sessions: 2, paid: 1, revenue: [{ currency: 'EUR', amount: 4498 }] } });
    // Sessions created before the period are not counted.
    const later = await insightSummary(stack.db, {
      merchant: { platformUuid: merchant.platformUuid, environment: 'sandbox' },
      days: 1,
      now: new Date(Date.now() + 2 * 24 * 3600 * 1000),
    });
    expect(later.links).toEqual({ sessions: 0, paid: 0, revenue: [] });
  });

  it('limits visits per link, whatever the client', async () => {
    const merchant = await stack.createMerchant();
    const { json: link } = await linksApi(merchant).create({ cartObject: validCartRequest(merchant.platformUuid).cartObject });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await visit(link.url, `198.51.100.${i + 1}`)).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
  });
});
