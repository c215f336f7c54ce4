import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CREATE_CART_EXAMPLE, EXAMPLE_PLATFORM_UUID } from '../../api/carts/cart-paths.js';
import { ERROR_STATUS, type ErrorCode } from '../../application/errors.js';
import { insertMerchant } from '../../core/merchants/merchant-store.js';
import { setRequireApiKey } from '../../core/merchants/api-keys.js';
import { newWebhookSecret } from '../../core/webhooks/signing.js';
import { ACCEPTED_CURRENCIES, COUNTRY_CODES } from '../../core/checkout/cart-schema.js';
import { SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
import { createCartId, postCart, validCartRequest } from '../support/fixtures.js';
import { merchantApi, paidCarts } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';

interface Document {
  paths: Record<
    string,
    {
      post: {
        requestBody: { content: Record<string, { example: unknown }> };
        parameters?: Array<{ name: string; example?: string }>;
        responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: { code: ErrorCode } }> }> }>;
      };
    }
  >;
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
}

/** Checks an answer against the document itself: its status is documented, and its body matches that status's schema. */
function contract(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'openapi' });
  const operation = document.paths['/v2/public/api/cart/']!.post;
  return {
    operation,
    async check(res: Response): Promise<{ status: number; body: unknown }> {
      const status = String(res.status);
      const body: unknown = await res.json();
      expect(Object.keys(operation.responses), `status ${status} is documented`).toContain(status);
      const validate = ajv.compile({ $ref: `openapi#/paths/~1v2~1public~1api~1cart~1/post/responses/${status}/content/application~1json/schema` });
      expect(validate(body), `${status} ${JSON.stringify(body)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      return { status: res.status, body };
    },
  };
}

describe('the OpenAPI document tells the truth about create-cart', () => {
  const stack = useTestStack();
  const limited = useTestStack({ RATE_LIMIT_PER_CLIENT: '1' });

  const documentOf = async (apiUrl: string) => (await (await fetch(`${apiUrl}/openapi.json`)).json()) as Document;

  it('lists the currencies and countries the server accepts, as enums', async () => {
    const { components } = await documentOf(stack.apiUrl);
    // The currency enum is what the deployment accepts, exactly GET /v2/public/api/currencies' codes (test/integration/currencies.test.ts holds those to create-cart).
    const listed = ((await (await fetch(`${stack.apiUrl}/v2/public/api/currencies`)).json()) as { data: { code: string }[] }).data.map((c) => c.code);
    expect(components.schemas.Cart!.properties.currency!.enum).toEqual(listed);
    expect(listed).toEqual(ACCEPTED_CURRENCIES);
    expect(components.schemas.Cart!.properties.country!.enum).toEqual(COUNTRY_CODES);
    expect(listed).toContain('EUR');
    for (const refused of ['XAU', 'IRR', 'KPW', 'VES']) expect(listed).not.toContain(refused);
  });

  it('accepts the documented request exactly as written, and answers it as documented', async () => {
    const document = await documentOf(stack.apiUrl);
    const api = contract(document);
    const example = api.operation.requestBody.content['application/json']!.example;
    expect(example).toEqual(CREATE_CART_EXAMPLE);
    await insertMerchant(stack.db, {
      platformUuid: EXAMPLE_PLATFORM_UUID,
      name: 'Demo Store',
      environment: 'sandbox',
      webhookUrl: 'http://localhost:9/webhooks',
      sealedSecret: stack.config.keyring.seal(newWebhookSecret()),
    });
    const first = await api.check(await postCart(stack.apiUrl, example, { 'idempotency-key': 'openapi-example-0001' }));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 'SUCCESS', data: { cartData: CREATE_CART_EXAMPLE.cartObject } });
    const replay = await postCart(stack.apiUrl, example, { 'idempotency-key': 'openapi-example-0001' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await api.check(replay)).body).toEqual(first.body);
  });

  it('documents every error it answers, with examples whose code carries the documented status', async () => {
    const document = await documentOf(stack.apiUrl);
    const api = contract(document);
    for (const [status, response] of Object.entries(api.operation.responses)) {
      for (const { value } of Object.values(response.content?.['application/json']?.examples ?? {}))
        expect(String(ERROR_STATUS[value.code]), value.code).toBe(status);
    }

    const example = CREATE_CART_EXAMPLE;
    const url = `${stack.apiUrl}/v2/public/api/cart/`;
    const answers = [
      await api.check(await postCart(stack.apiUrl, '{"cartObject":')),
      await api.check(await postCart(stack.apiUrl, { cartObject: {} })),
      await api.check(await fetch(url)),
      await api.check(
        await postCart(
          stack.apiUrl,
          { cartObject: { ...example.cartObject, cart: { ...example.cartObject.cart, extra: { orderRef: 'order-43' } } } },
          { 'idempotency-key': 'openapi-example-0001' },
        ),
      ),
      await api.check(await postCart(stack.apiUrl, `{"pad":"${'x'.repeat(300 * 1024)}"}`)),
      await api.check(await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })),
      await api.check(
        await postCart(stack.apiUrl, {
          cartObject: { ...example.cartObject, store: { ...example.cartObject.store, platformUuid: '00000000-0000-4000-8000-000000000000' } },
        }),
      ),
    ];
    const strict = await stack.createMerchant({ name: 'Strict Store' });
    await setRequireApiKey(stack.db, strict.platformUuid, true);
    answers.push(
      await api.check(
        await postCart(stack.apiUrl, { cartObject: { ...example.cartObject, store: { ...example.cartObject.store, platformUuid: strict.platformUuid } } }),
      ),
    );
    await postCart(limited.apiUrl, example);
    answers.push(await contract(await documentOf(limited.apiUrl)).check(await postCart(limited.apiUrl, example)));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 405, 409, 413, 415, 422, 401, 429]);
  });
});

type Operations = Record<string, Record<string, { responses: Record<string, unknown> }>>;

/** Checks an answer of any operation against the document: its status is documented there, and its body matches that status's schema. */
function operationContract(document: { paths: unknown }) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: 'openapi' });
  const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
  return async (method: 'get' | 'post' | 'patch', path: string, res: Response): Promise<{ status: number; body: unknown }> => {
    const status = String(res.status);
    const body: unknown = await res.json();
    const operation = (document.paths as Operations)[path]?.[method];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    expect(Object.keys(operation!.responses), `${method} ${path}: status ${status} is documented`).toContain(status);
    const validate = ajv.compile({ $ref: `openapi#/paths/${pointer(path)}/${method}/responses/${status}/content/application~1json/schema` });
    expect(validate(body), `${method} ${path} ${status} ${JSON.stringify(body)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    return { status: res.status, body };
  };
}

describe('the OpenAPI document tells the truth about the merchant API', () => {
  const stack = useTestStack();

  it('documents the bearer scheme on every merchant operation', async () => {
    const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.components.securitySchemes.merchantApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const merchantOperations = Object.entries(document.paths).filter(([path]) => path.startsWith('/v2/merchant/') || path.startsWith('/v2/sandbox/'));
    expect(merchantOperations.map(([path]) => path).sort()).toEqual([
      '/v2/merchant/carts/{cartId}/expire',
      '/v2/merchant/carts/{cartId}/retry',
      '/v2/merchant/events',
      '/v2/merchant/events/stream',
      '/v2/merchant/events/{id}/replay',
      '/v2/merchant/me',
      '/v2/merchant/orders',
      '/v2/merchant/orders/{cartId}',
      '/v2/merchant/orders/{cartId}/capture',
      '/v2/merchant/orders/{cartId}/dispute/accept',
      '/v2/merchant/orders/{cartId}/dispute/evidence',
      '/v2/merchant/orders/{cartId}/refunds',
      '/v2/merchant/orders/{cartId}/void',
      '/v2/merchant/payment-links',
      '/v2/merchant/payment-links/{id}',
      '/v2/merchant/webhook-endpoints',
      '/v2/merchant/webhook-endpoints/{id}',
      '/v2/merchant/webhook-endpoints/{id}/rotate-secret',
      '/v2/merchant/webhook-endpoints/{id}/test',
      '/v2/sandbox/carts/{cartId}/advance',
      '/v2/sandbox/carts/{cartId}/complete',
      '/v2/sandbox/carts/{cartId}/dispute',
    ]);
    for (const [, operations] of merchantOperations)
      for (const operation of Object.values(operations)) expect(operation.security).toEqual([{ merchantApiKey: [] }]);
    const page = await fetch(`${stack.apiUrl}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/init.js');
  });

  it('answers payment links, their successes and their errors, as documented', async () => {
    const check = operationContract((await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as { paths: unknown });
    const merchant = await stack.createMerchant({ name: 'Link Store' });
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.apiUrl}/v2/merchant/payment-links${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    const links = '/v2/merchant/payment-links';
    const link = '/v2/merchant/payment-links/{id}';
    const { cartObject } = validCartRequest(merchant.platformUuid);
    const created = await check('post', links, await send('POST', '', { cartObject, maxUses: 2 }));
    const id = (created.body as { id: string }).id;
    const answers = [
      created,
      await check('post', links, await send('POST', '', { cartObject, maxUses: 0 })),
      await check('post', links, await send('POST', '', '{"cartObject":')),
      await check('get', links, await send('GET', '')),
      await check('get', link, await send('GET', `/${id}`)),
      await check('get', link, await send('GET', '/pl_AAAAAAAAAAAAAAAAAAAAAA')),
      await check('patch', link, await send('PATCH', `/${id}`, { active: true })),
      await check('patch', link, await send('PATCH', `/${id}`, { active: false })),
      await check('get', links, await fetch(`${stack.apiUrl}${links}`)),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 400, 400, 200, 200, 404, 400, 200, 401]);
  });

  it('answers /me, orders, refunds and expire, their successes and their errors, as documented', async () => {
    const check = operationContract((await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as { paths: unknown });
    const merchant = await stack.createMerchant({ name: 'Contract Store' });
    const api = merchantApi(stack, merchant.apiKey);
    const cartId = await paidCarts(stack, merchant).paidCart();
    const unpaid = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const refunds = '/v2/merchant/orders/{cartId}/refunds';
    const expire = '/v2/merchant/carts/{cartId}/expire';

    const answers = [
      await check('get', '/v2/merchant/me', await api.get('/me')),
      await check('get', '/v2/merchant/me', await fetch(`${stack.apiUrl}/v2/merchant/me`)),
      await check('post', refunds, await api.refund(cartId, { amount: 1000, reason: 'Damaged' }, { 'Idempotency-Key': `contract-${cartId}` })),
      await check('post', refunds, await api.refund(cartId, { amount: 1000, reason: 'Damaged' }, { 'Idempotency-Key': `contract-${cartId}` })),
      await check('post', refunds, await api.refund(cartId, { amount: SANDBOX_REFUND_DECLINED_AMOUNT })),
      await check('post', refunds, await api.refund(cartId, { amount: 0 })),
      await check('post', refunds, await api.refund(cartId, '{"amount":')),
      await check('post', refunds, await api.refund('nosuchcartnosuchcart0000', { amount: 1 })),
      await check('post', refunds, await api.refund(unpaid, { amount: 1 })),
      await check('post', refunds, await api.refund(cartId, { amount: 99_999 })),
      await check('post', refunds, await api.refund(cartId, 'amount=1', { 'content-type': 'text/plain' })),
      await check('get', '/v2/merchant/orders/{cartId}', await api.get(`/orders/${cartId}`)),
      await check('get', '/v2/merchant/orders/{cartId}', await api.get(`/orders/${unpaid}`)),
      await check('get', '/v2/merchant/orders/{cartId}', await api.get('/orders/nosuchcartnosuchcart0000')),
      await check('get', '/v2/merchant/orders', await api.get('/orders?limit=1')),
      await check('get', '/v2/merchant/orders', await api.get('/orders?limit=1000')),
      await check('post', expire, await api.expire(cartId)),
      await check('post', expire, await api.expire('nosuchcartnosuchcart0000')),
      await check('post', expire, await api.expire(unpaid)),
      await check('post', expire, await api.expire(unpaid)),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 201, 201, 201, 400, 400, 404, 409, 422, 415, 200, 200, 404, 200, 400, 409, 404, 200, 409]);
    expect(answers[4]!.body).toMatchObject({ status: 'failed', failureCode: 'refund_declined' });
    expect(answers[11]!.body).toMatchObject({ status: 'partially_refunded', refunds: [{ status: 'succeeded' }, { status: 'failed' }] });
    expect((answers[14]!.body as { nextCursor: string | null }).nextCursor).not.toBeNull();
    expect(answers.slice(16).map((a) => (a.body as { code?: string }).code ?? a.body)).toEqual([
      'SESSION_ENDED',
      'NOT_FOUND',
      { cartId: unpaid, status: 'cancelled', cancelledBy: 'merchant' },
      'SESSION_ENDED',
    ]);

    // Webhook endpoints and events.
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.apiUrl}/v2/merchant${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    const endpoints = '/v2/merchant/webhook-endpoints';
    const endpoint = '/v2/merchant/webhook-endpoints/{id}';
    const created = await check(
      'post',
      endpoints,
      await send('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/accounting', enabledEvents: ['order_refunded'] }),
    );
    const id = (created.body as { id: string }).id;
    const events = await check('get', '/v2/merchant/events', await api.get(`/events?cartId=${cartId}&limit=1`));
    const eventId = (events.body as { data: Array<{ id: string }> }).data[0]!.id;
    const more = [
      await check('post', endpoints, await send('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/x', enabledEvents: ['*', 'order_created'] })),
      await check('get', endpoints, await api.get('/webhook-endpoints')),
      await check('get', endpoint, await api.get(`/webhook-endpoints/${id}`)),
      await check('get', endpoint, await api.get('/webhook-endpoints/0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b')),
      await check('patch', endpoint, await send('PATCH', `/webhook-endpoints/${id}`, { description: 'Accounting', enabledEvents: ['*'] })),
      await check('patch', endpoint, await send('PATCH', `/webhook-endpoints/${id}`, '{"description":')),
      await check('post', `${endpoint}/rotate-secret`, await send('POST', `/webhook-endpoints/${id}/rotate-secret`)),
      await check('get', '/v2/merchant/events', await api.get(`/events?delivered=false`)),
      await check('post', '/v2/merchant/events/{id}/replay', await send('POST', `/events/${eventId}/replay`, { endpointId: id })),
      await check('post', '/v2/merchant/events/{id}/replay', await send('POST', '/events/evt_nosuchevent/replay', { endpointId: id })),
    ];
    expect([created.status, events.status, ...more.map((a) => a.status)]).toEqual([201, 200, 400, 200, 200, 404, 200, 400, 200, 400, 200, 404]);
    expect((events.body as { nextCursor: string | null }).nextCursor).not.toBeNull();
  });
});
