import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listCursor } from '../../core/list-cursor.js';

const ID = /^[a-z]{1,8}$/;
const cursor = listCursor('t1', ID);
const encoded = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** The latest time a cursor may hold: Number.MAX_SAFE_INTEGER milliseconds, in microseconds. */
const LATEST = (BigInt(Number.MAX_SAFE_INTEGER) * 1000n).toString();

const positions = fc.record({
  createdAtMicros: fc.bigInt({ min: 0n, max: BigInt(LATEST) }).map(String),
  id: fc.stringMatching(ID),
});

describe('a list’s cursor', () => {
  it('is URL-safe text that gives back the position, to the microsecond', () => {
    const position = { createdAtMicros: '1795303167179204', id: 'abc' };
    const value = cursor.encode(position);
    expect(value).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor.decode(value)).toEqual(position);
  });

  it('tells apart two items created in the same millisecond', () => {
    const [first, second] = [cursor.encode({ createdAtMicros: '1795303167179204', id: 'a' }), cursor.encode({ createdAtMicros: '1795303167179205', id: 'a' })];
    expect(first).not.toBe(second);
    expect(cursor.decode(second)?.createdAtMicros).toBe('1795303167179205');
  });

  it('holds times up to the latest a JavaScript date can say, and none after', () => {
    expect(cursor.decode(encoded(`t1.${LATEST}.abc`))).toEqual({ createdAtMicros: LATEST, id: 'abc' });
    expect(cursor.decode(encoded(`t1.${BigInt(LATEST) + 1n}.abc`))).toBeUndefined();
  });

  it('refuses another list’s cursor, of the same shape', () => {
    const other = listCursor('t2', ID);
    const position = { createdAtMicros: '1', id: 'abc' };
    expect(other.decode(cursor.encode(position))).toBeUndefined();
    expect(cursor.decode(other.encode(position))).toBeUndefined();
  });

  it('refuses anything it did not hand out', () => {
    for (const bad of [
      '',
      'not a cursor!',
      `${cursor.encode({ createdAtMicros: '1', id: 'abc' })}=`,
      encoded('t1.1'),
      encoded('t1..abc'),
      encoded('t1.1.'),
      encoded('t1.1.abc.def'),
      encoded('t1.-1.abc'),
      encoded('t1.1e6.abc'),
      encoded(`t1.${'9'.repeat(20)}.abc`),
      encoded('t1.1.ABC'),
      encoded("t1.1.abc' or 1=1"),
      'A'.repeat(201),
    ])
      expect(cursor.decode(bad), bad).toBeUndefined();
  });

  it('gives back every position it encodes (property)', () => {
    fc.assert(
      fc.property(positions, (position) => {
        expect(cursor.decode(cursor.encode(position))).toEqual(position);
      }),
    );
  });

  it('decodes any text to nothing or to a position its list could hold, never throwing (property)', () => {
    const text = fc.oneof(
      fc.string(),
      fc.base64String(),
      fc.string().map(encoded),
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => encoded(`t1.${a}.${b}`)),
    );
    fc.assert(
      fc.property(text, (value) => {
        const position = cursor.decode(value);
        if (position === undefined) return;
        expect(position.createdAtMicros).toMatch(/^\d+$/);
        expect(BigInt(position.createdAtMicros) <= BigInt(LATEST)).toBe(true);
        expect(position.id).toMatch(ID);
      }),
      { numRuns: 1000 },
    );
  });
});
