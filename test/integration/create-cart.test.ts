import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCartRequestSchema, type CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { validCartArbitrary } from '../support/cart-arbitraries.js';

const REQUEST_ID = /^[\w.-]{8,128}$/;

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toMatch(REQUEST_ID);
  const body = (await res.json()) as { code: string; message: string; errors: Array<{ path: string; message: string }>; requestId: string };
  expect(Object.keys(body).sort()).toEqual(['code', 'errors', 'message', 'requestId']);
  expect(body.code).toBe(code);
  expect(body.requestId).toBe(requestId);
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}

/** Sends `totalBytes` with Transfer-Encoding: chunked (no Content-Length), 16 KiB at a time. */
function postChunked(apiUrl: string, totalBytes: number): Promise<{ status: number; body: string; bytesSent: number }> {
  return new Promise((resolve, reject) => {
    const url = new URL('/v2/public/api/cart/', apiUrl);
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    let bytesSent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, bytesSent }));
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const pump = () => {
      while (!answered && bytesSent < totalBytes) {
        bytesSent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.write('{"cartObject":');
    pump();
  });
}

describe('POST /v2/public/api/cart/', () => {
  // Generous limits: this file sends a few hundred requests from one address on purpose.
  const stack = useTestStack({ RATE_LIMIT_PER_CLIENT: '100000', RATE_LIMIT_PER_PLATFORM_CLIENT: '100000', RATE_LIMIT_PER_PLATFORM: '100000' });
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant()).platformUuid;
  });

  it('answers exactly the documented create-cart body, with a ledger row and a running session', async () => {
    const request = validCartRequest(platformUuid);
    const before = Date.now();
    const res = await postCart(stack.apiUrl, request);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const body = (await res.json()) as { code: string; message: string; data: { cartId: string; cartData: unknown; expiresOn: string } };
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'message']);
    expect(Object.keys(body.data).sort()).toEqual(['cartData', 'cartId', 'expiresOn']);
    expect(body.code).toBe('SUCCESS');
    expect(body.message).toBe('Cart created');
    expect(body.data.cartData).toEqual(request.cartObject);
    expect(body.data.cartId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(body.data.expiresOn).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const lifetime = Date.parse(body.data.expiresOn) - before;
    expect(lifetime).toBeGreaterThanOrEqual(45 * 60_000);
    expect(lifetime).toBeLessThan(45 * 60_000 + 5_000);

    const rows = await stack.db`select status, amount, currency from carts where cart_id = ${body.data.cartId}`;
    expect(rows).toEqual([{ status: 'pending', amount: '4498', currency: 'EUR' }]);
    const description = await stack.temporal.client.workflow.getHandle(`cart-${body.data.cartId}`).describe();
    expect(description.status.name).toBe('RUNNING');
  });

  it('accepts the path without its trailing slash', async () => {
    const res = await fetch(`${stack.apiUrl}/v2/public/api/cart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validCartRequest(platformUuid)),
    });
    expect(res.status).toBe(200);
  });

  it('answers malformed JSON with INVALID_JSON', async () => {
    for (const text of ['{"cartObject": ', '{cartObject: 1}', '', '{"a":1,}', '\u00ff\u00fe']) {
      await expectError(await postCart(stack.apiUrl, text), 400, 'INVALID_JSON');
    }
  });

  it('answers a body that is JSON but not an object with a VALIDATION_ERROR on the body', async () => {
    for (const text of ['null', '[]', '"cart"', '42']) {
      const body = await expectError(await postCart(stack.apiUrl, text), 400, 'VALIDATION_ERROR');
      expect(body.errors).toEqual([{ path: '(body)', message: expect.any(String) }]);
    }
  });

  it('refuses a body that is not declared as JSON with UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp', '']) {
      const res = await fetch(`${stack.apiUrl}/v2/public/api/cart/`, {
        method: 'POST',
        headers: type ? { 'content-type': type } : {},
        body: JSON.stringify(validCartRequest(platformUuid)),
      });
      await expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const withCharset = await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'content-type': 'application/json; charset=utf-8' });
    expect(withCharset.status).toBe(200);
  });

  it('refuses a body over 256 KiB announced by Content-Length', async () => {
    const request = validCartRequest(platformUuid);
    request.cartObject.cart.extra = { padding: 'x'.repeat(255) };
    const huge = JSON.stringify(request).replace('{"cartObject"', `{${' '.repeat(256 * 1024)}"cartObject"`);
    await expectError(await postCart(stack.apiUrl, huge), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('cuts off a chunked body over 256 KiB while it streams, without reading it all', async () => {
    const sent = await postChunked(stack.apiUrl, 8 * 1024 * 1024);
    expect(sent.status).toBe(413);
    expect(JSON.parse(sent.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', errors: [] });
    expect(sent.bytesSent).toBeLessThan(8 * 1024 * 1024);
  });

  it('accepts a chunked body under the limit', async () => {
    const body = JSON.stringify(validCartRequest(platformUuid));
    const res = await fetch(`${stack.apiUrl}/v2/public/api/cart/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(body)), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
  });

  it('answers an unknown route with NOT_FOUND and a wrong method with METHOD_NOT_ALLOWED', async () => {
    await expectError(await fetch(`${stack.apiUrl}/v2/public/api/carts`), 404, 'NOT_FOUND');
    await expectError(await fetch(`${stack.apiUrl}/v1/public/api/cart/`, { method: 'POST' }), 404, 'NOT_FOUND');
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${stack.apiUrl}/v2/public/api/cart/`, { method });
      await expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const ours = await postCart(stack.apiUrl, '{', { 'x-request-id': 'merchant-trace-0001' });
    expect((await expectError(ours, 400, 'INVALID_JSON')).requestId).toBe('merchant-trace-0001');
    const bad = await postCart(stack.apiUrl, '{', { 'x-request-id': 'a b' });
    expect(bad.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('accepts any valid generated cart and echoes it faithfully (property)', async () => {
    await fc.assert(
      fc.asyncProperty(validCartArbitrary(platformUuid), async (request: CreateCartRequest) => {
        expect(createCartRequestSchema.safeParse(request).success).toBe(true);
        const res = await postCart(stack.apiUrl, request);
        const body = (await res.json()) as { data: { cartData: unknown } };
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body.data.cartData).toEqual(request.cartObject);
      }),
      { numRuns: 60 },
    );
  });

  it('never answers 500 to arbitrary JSON, nor to arbitrary mutations of a valid cart (property)', async () => {
    const valid = validCartRequest(platformUuid);
    const mutated = fc.tuple(fc.constantFrom('store', 'cart'), fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })).map(([part, key, value]) => {
      const copy = structuredClone(valid) as unknown as { cartObject: Record<string, Record<string, unknown>> };
      copy.cartObject[part]![key] = value;
      return copy;
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 6 }), mutated), async (json) => {
        const res = await postCart(stack.apiUrl, JSON.stringify(json));
        expect(res.status).toBeLessThan(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await res.json()) as { code: string };
        if (res.status !== 200) expect(['VALIDATION_ERROR', 'UNKNOWN_PLATFORM']).toContain(body.code);
      }),
      { numRuns: 150 },
    );
  });
});

describe('API reference', () => {
  const stack = useTestStack();

  it('serves an OpenAPI 3.1 document that a maintained validator accepts, with every error response', async () => {
    const res = await fetch(`${stack.apiUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as {
      openapi: string;
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: unknown }> }> } }>;
    };
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const responses = document.paths['/v2/public/api/cart/']!.post.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '405', '409', '413', '415', '422', '429', '500', '503']);
    for (const [status, response] of Object.entries(responses)) {
      if (status === '200') continue;
      expect(response.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
  });

  it('documents the request with the same rules that validate it', async () => {
    const document = (await (await fetch(`${stack.apiUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean }> };
    };
    const { Item, Store, Cart } = document.components.schemas;
    expect(Item!.required).toEqual(['title', 'description', 'price', 'quantity', 'url', 'image', 'zeroPay']);
    expect(Item!.properties.price).toMatchObject({ type: 'integer', minimum: 0 });
    expect(Item!.properties.quantity).toMatchObject({ type: 'integer', minimum: 1 });
    expect(Item!.additionalProperties).toBe(false);
    expect(Store!.required).toEqual(['platformUuid', 'name', 'url']);
    expect(Cart!.required).toEqual(['currency', 'country', 'items', 'extra', 'merchantUrls']);
    expect(Cart!.properties.items).toMatchObject({ minItems: 1, maxItems: 100 });
  });

  it('renders the reference at /docs from our own origin under a self-only CSP', async () => {
    const res = await fetch(`${stack.apiUrl}/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await res.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) {
      expect(source.startsWith('/')).toBe(true);
      const asset = await fetch(`${stack.apiUrl}${source}`);
      expect(asset.status, source).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(10);
    }
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });
});
