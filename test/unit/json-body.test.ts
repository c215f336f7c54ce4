import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { onError } from '../../api/errors.js';
import { jsonBody, MAX_JSON_DEPTH, readJsonBody, structureProblems } from '../../api/json-body.js';

const problems = (text: string, depth = MAX_JSON_DEPTH) => structureProblems(text, depth);

describe('the structure check of a JSON body', () => {
  it('finds __proto__ keys at any depth, by path', () => {
    expect(problems('{"a":[{"b":{"__proto__":1}}]}')).toEqual([{ path: 'a[0].b.__proto__', message: 'is a reserved name' }]);
    expect(problems('{"a":1}')).toEqual([]);
  });

  it('finds a key given twice in one object, but not the same key in two objects', () => {
    expect(problems('{"cart":{"items":[{"price":1},{"price":2,"price":3}]}}')).toEqual([
      { path: 'cart.items[1].price', message: 'appears more than once in the same object' },
    ]);
    expect(problems('[{"a":1},{"a":1}]')).toEqual([]);
  });

  it('stops at the first level too deep, naming where, without recursing', () => {
    expect(problems('{"a":{"b":[[1]]}}', 3)).toEqual([{ path: 'a.b[0]', message: 'nests deeper than 3 levels' }]);
    expect(problems('['.repeat(100_000) + ']'.repeat(100_000))).toEqual([
      { path: '[0]'.repeat(MAX_JSON_DEPTH), message: `nests deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
    expect(problems('[[[]]]', 3)).toEqual([]);
  });

  it('is not fooled by brackets, quotes, colons and escapes inside strings', () => {
    expect(problems('{"a":"{[\\"b\\":1,]}","b":"x:y","c\\"d":1,"c\\"d":2}')).toEqual([
      { path: '["c\\"d"]', message: 'appears more than once in the same object' },
    ]);
    expect(problems('{"k":"\\\\","k2":"\\u0022"}')).toEqual([]);
  });
});

describe('jsonBody(maxBytes), before a JSON body is read', () => {
  const app = new Hono();
  app.post('/', jsonBody(32), async (c) => c.json(await readJsonBody(c)));
  app.onError(onError);
  const post = (body: string, contentType = 'application/json') => app.request('/', { method: 'POST', body, headers: { 'Content-Type': contentType } });

  it('lets a JSON body within the limit through, a charset parameter included', async () => {
    const res = await post('{"a":1}', 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  it('refuses a body that does not say it is JSON with 415, before reading it', async () => {
    const res = await post('{"a":1}', 'text/plain');
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('Content-Type: application/json') });
  });

  it('cuts a body over the limit off with 413 and closes the connection', async () => {
    const res = await post(JSON.stringify({ a: 'x'.repeat(64) }));
    expect(res.status).toBe(413);
    expect(res.headers.get('Connection')).toBe('close');
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'The body must be at most 32 bytes.' });
  });
});
