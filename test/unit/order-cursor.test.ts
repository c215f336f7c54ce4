import { describe, expect, it } from 'vitest';
import { decodeOrderCursor, encodeOrderCursor } from '../../core/orders/order-cursor.js';
import { orderListQuerySchema, refundRequestSchema } from '../../core/orders/order-schema.js';
import { decodeEventCursor, encodeEventCursor } from '../../core/webhooks/event-cursor.js';
import { eventListQuerySchema } from '../../core/webhooks/event-schema.js';
import { enabledEventsSchema } from '../../core/webhooks/endpoint-schema.js';

describe('the order list cursor', () => {
  it('gives back the position it encodes, to the microsecond', () => {
    const position = { createdAtMicros: '1795303167179204', cartId: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' };
    const cursor = encodeOrderCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeOrderCursor(cursor)).toEqual(position);
  });

  it('refuses what it did not hand out', () => {
    const valid = encodeOrderCursor({ createdAtMicros: '1795303167179204', cartId: 'abc' });
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    for (const bad of [
      '',
      'not a cursor!',
      valid + '=',
      encode('o2.1795303167179204.abc'),
      encode('o1.1795303167179204'),
      encode('o1.-5.abc'),
      encode('o1.1.2.abc'),
      encode("o1.1795303167179204.abc' or 1=1"),
      encode(`o1.${'9'.repeat(19)}.abc`),
      'A'.repeat(201),
    ]) {
      expect(decodeOrderCursor(bad), bad).toBeUndefined();
    }
  });
});

describe('the order list query', () => {
  const issues = (query: Record<string, string>) => orderListQuerySchema.safeParse(query).error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

  it('takes every filter as a URL carries it, limit as the integer the document says', () => {
    const query = {
      status: 'paid',
      createdFrom: '2030-01-01T00:00:00Z',
      createdTo: '2030-02-01T00:00:00+01:00',
      extraKey: 'orderRef',
      extraValue: 'order-42',
      limit: '100',
      cursor: encodeOrderCursor({ createdAtMicros: '1', cartId: 'abc' }),
    };
    expect(orderListQuerySchema.parse(query)).toEqual({ ...query, limit: 100 });
  });

  it('names the field and the fix', () => {
    expect(issues({ limit: '0' })).toEqual([['limit', 'must be a whole number from 1 to 100']]);
    expect(issues({ limit: '101' })).toEqual([['limit', 'must be a whole number from 1 to 100']]);
    expect(issues({ limit: '2.5' })).toEqual([['limit', 'must be a whole number from 1 to 100']]);
    expect(issues({ limit: '1e1' })).toEqual([['limit', 'must be a whole number from 1 to 100']]);
    expect(issues({ extraKey: 'orderRef' })).toEqual([['extraValue', 'is required with extraKey (the value that key must have)']]);
    expect(issues({ extraValue: 'x' })).toEqual([['extraKey', 'is required with extraValue (the key of extra to compare)']]);
    expect(issues({ createdFrom: 'yesterday' })).toEqual([['createdFrom', 'must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z']]);
    expect(issues({ createdFrom: '2030-02-01T00:00:00Z', createdTo: '2030-01-01T00:00:00Z' })).toEqual([['createdTo', 'must be later than createdFrom']]);
    expect(issues({ cursor: 'abc' })[0]?.[0]).toBe('cursor');
    expect(issues({ status: 'shipped' })[0]?.[0]).toBe('status');
    expect(issues({ sort: 'asc' })[0]?.[0]).toBe('');
  });
});

describe('the refund request', () => {
  const firstIssue = (body: unknown) => refundRequestSchema.safeParse(body).error?.issues[0];

  it('takes a positive whole amount in minor units and an optional reason', () => {
    expect(refundRequestSchema.parse({ amount: 1, reason: 'Damaged\nin transit' })).toEqual({ amount: 1, reason: 'Damaged\nin transit' });
    expect(refundRequestSchema.parse({ amount: 4498 })).toEqual({ amount: 4498 });
  });

  it('refuses non-positive, fractional and string amounts, long reasons and control characters', () => {
    expect(firstIssue({ amount: 0 })?.message).toBe('must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)');
    expect(firstIssue({ amount: -1 })?.message).toBe('must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)');
    expect(firstIssue({ amount: 10.5 })?.message).toBe('must be a whole number of minor units (e.g. 1000 for 10.00 EUR)');
    expect(firstIssue({ amount: '10' })?.path).toEqual(['amount']);
    expect(firstIssue({ amount: 1, reason: 'x'.repeat(501) })?.message).toBe('must be at most 500 characters');
    expect(firstIssue({ amount: 1, reason: 'bell\u0007' })?.path).toEqual(['reason']);
  });
});

describe('the event list cursor and query, and an endpoint’s enabledEvents', () => {
  it('gives back the position it encodes and refuses what it did not hand out, an order cursor included', () => {
    const position = { createdAtMicros: '1795303167179204', eventId: 'evt_oZhTjGKVftQLFqUBg3XndWPy' };
    expect(decodeEventCursor(encodeEventCursor(position))).toEqual(position);
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    for (const bad of [
      encodeOrderCursor({ createdAtMicros: '1', cartId: 'abc' }),
      encode('e1.1795303167179204.abc'),
      encode("e1.1.evt_x' or 1=1"),
      encode(`e1.${'9'.repeat(19)}.evt_x`),
    ])
      expect(decodeEventCursor(bad), bad).toBeUndefined();
  });

  it('needs endpointId with delivered, and names each bad parameter', () => {
    const problems = (query: Record<string, string>) => eventListQuerySchema.safeParse(query).error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(problems({ delivered: 'false', endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b', type: 'order_refunded' })).toBeUndefined();
    expect(problems({ delivered: 'false' })).toEqual([['endpointId', 'is required with delivered (the endpoint whose deliveries to look at)']]);
    expect(problems({ delivered: 'no', type: 'order_shipped', limit: '0' })!.map(([path]) => path)).toEqual(['type', 'delivered', 'limit']);
  });

  it('takes event names or ["*"] alone, each once', () => {
    expect(enabledEventsSchema.safeParse(['order_refunded', 'order_created']).success).toBe(true);
    expect(enabledEventsSchema.safeParse(['*']).success).toBe(true);
    for (const bad of [[], ['*', 'order_created'], ['order_created', 'order_created'], ['order_shipped'], 'order_created'])
      expect(enabledEventsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});
