import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logger.js';
import { isDependencyUnavailable } from '../../api/dependency-errors.js';
import { jsonPath } from '../../application/errors.js';
import { onError, onNotFound } from '../../api/errors.js';
import { readIdempotencyKey } from '../../application/carts/idempotency.js';
import { requestFingerprint } from '../../core/idempotency-keys.js';
import { requestContext } from '../../api/middleware/request-context.js';

describe('error envelope', () => {
  const app = new Hono();
  app.use(requestContext(createLogger({ level: 'silent', name: 'test' })));
  app.get('/boom', () => {
    throw new Error('connect to db.internal:5432 failed; password=hunter2');
  });
  app.notFound(onNotFound);
  app.onError(onError);

  it('turns an unexpected exception into INTERNAL_ERROR without leaking it', async () => {
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toEqual({ code: 'INTERNAL_ERROR', message: expect.any(String), errors: [], requestId: res.headers.get('x-request-id') });
    expect(text).not.toMatch(/db\.internal|hunter2|Error:|at /);
  });

  it('answers an unknown route with the same envelope', async () => {
    const res = await app.request('/nowhere');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND', errors: [] });
  });
});

describe('jsonPath', () => {
  it('writes paths as a JavaScript developer reads them', () => {
    expect(jsonPath(['cartObject', 'cart', 'items', 2, 'zeroPay'])).toBe('cartObject.cart.items[2].zeroPay');
    expect(jsonPath(['cartObject', 'cart', 'extra', 'order.ref'])).toBe('cartObject.cart.extra["order.ref"]');
    expect(jsonPath(['extra', 'a "quoted" key'])).toBe('extra["a \\"quoted\\" key"]');
    expect(jsonPath([])).toBe('');
  });
});

describe('idempotency helpers', () => {
  it('fingerprints bodies by content, not key order or spacing', () => {
    expect(requestFingerprint({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(requestFingerprint({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(requestFingerprint({ a: [1, 2] })).not.toBe(requestFingerprint({ a: [2, 1] }));
  });

  it('validates the key format', () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey('5f0c2a8e-3b9d-4c7a-9e1f-2d3b4c5a6e7f')).toBe('5f0c2a8e-3b9d-4c7a-9e1f-2d3b4c5a6e7f');
    for (const bad of ['', 'short', 'with space', 'x'.repeat(256)]) expect(() => readIdempotencyKey(bad)).toThrow(/malformed/);
  });
});

describe('isDependencyUnavailable', () => {
  it('recognises lost connections and PostgreSQL shutdowns, not our own mistakes', () => {
    expect(isDependencyUnavailable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isDependencyUnavailable(new Error('wrapper', { cause: Object.assign(new Error('x'), { code: '08006' }) }))).toBe(true);
    expect(isDependencyUnavailable(Object.assign(new Error('x'), { code: '42P01' }))).toBe(false);
    expect(isDependencyUnavailable(new TypeError('x'))).toBe(false);
  });
});
