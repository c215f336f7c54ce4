import { describe, expect, it } from 'vitest';
import { encodeEventCursor } from '../../core/webhooks/event-cursor.js';
import { decodeFeedPosition, encodeFeedPosition, eventStreamQuerySchema } from '../../core/webhooks/event-feed-schema.js';

describe('the event stream’s position (its messages’ id)', () => {
  it('gives back the position it encodes, to the microsecond, also the start of a microsecond', () => {
    for (const position of [
      { createdAtMicros: '1795303167179204', eventId: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' },
      { createdAtMicros: '1795303167179204', eventId: '' },
    ]) {
      const id = encodeFeedPosition(position);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeFeedPosition(id)).toEqual(position);
    }
  });

  it('refuses what it did not hand out, the event list’s cursor included', () => {
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    for (const bad of [
      '',
      'not an id!',
      encodeEventCursor({ createdAtMicros: '1795303167179204', eventId: 'evt_abc' }),
      encode('f1.1795303167179204'),
      encode('f1.-5.evt_abc'),
      encode('f1.1.evt_abc.x'),
      encode("f1.1795303167179204.evt_abc' or 1=1"),
      encode('f1.1795303167179204.abc'),
      encode(`f1.${'9'.repeat(19)}.evt_abc`),
      'A'.repeat(201),
    ]) {
      expect(decodeFeedPosition(bad), bad).toBeUndefined();
    }
  });
});

describe('the event stream’s query', () => {
  it('takes a comma-separated list of event names, and names what is not one', () => {
    expect(eventStreamQuerySchema.parse({ types: 'order_created,order_refunded' })).toEqual({ types: 'order_created,order_refunded' });
    expect(eventStreamQuerySchema.safeParse({ types: 'order_created,order_paid,' }).error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      [
        'types',
        '"order_paid", "" are not event names: must be a comma-separated list of order_created, order_updated, order_cancelled, order_refunded, order_abandoned, order_disputed',
      ],
    ]);
    expect(eventStreamQuerySchema.safeParse({ type: 'order_created' }).success).toBe(false);
  });
});
