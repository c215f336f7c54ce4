import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPath } from '../../application/errors.js';
import { MAX_JSON_DEPTH } from '../../api/json-body.js';
import { validCartArbitrary } from '../support/cart-arbitraries.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { jsonLeavesAndBranches, jsonType, REMOVE, withAt } from '../support/json-paths.js';
import { reportFigures } from '../support/reliability.js';
import { useTestStack } from '../support/test-stack.js';

interface ErrorEnvelope {
  code: string;
  message: string;
  errors: Array<{ path: string; message: string }>;
  requestId: string;
}

const SAMPLES: unknown[] = [[], {}, 'x', 1, true, null];
const CONTROL_CHARACTERS = [...Array(32).keys(), 0x7f].map((c) => String.fromCharCode(c));
// Descriptions are multi-line text: tab and line breaks belong there.
const LINE_BREAKS = new Set(['\t', '\n', '\r']);

describe('hostile input to create-cart never answers 500', () => {
  // Thousands of requests: the limits are not what is tested here. Rate-limit counters live in the
  // run's one database, so they also come from an address of their own (a documentation address,
  // through a trusted proxy hop): other files' stacks on 127.0.0.1 must not inherit this flood.
  const stack = useTestStack({
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_PLATFORM_CLIENT: '1000000',
    RATE_LIMIT_PER_PLATFORM: '1000000',
    TRUST_PROXY: '1',
  });
  const OWN_ADDRESS = { 'x-forwarded-for': '192.0.2.44' };

  async function send(body: unknown): Promise<{ status: number; body: ErrorEnvelope }> {
    const res = await postCart(stack.apiUrl, typeof body === 'string' ? body : JSON.stringify(body), OWN_ADDRESS);
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as ErrorEnvelope };
  }

  function expectRefusedAt(answer: { status: number; body: ErrorEnvelope }, path: string, what: string) {
    expect(answer.status, what).toBe(400);
    expect(answer.body.code, what).toBe('VALIDATION_ERROR');
    expect(answer.body.requestId, what).toMatch(/^req_/);
    expect(
      answer.body.errors.some((e) => e.path === path || e.path.startsWith(`${path}.`) || e.path.startsWith(`${path}[`)),
      `${what}: ${JSON.stringify(answer.body.errors)}`,
    ).toBe(true);
  }

  it('refuses a value of the wrong JSON type at every path, naming it', async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const valid = validCartRequest(platformUuid);
    let tried = 0;
    for (const { path, value } of jsonLeavesAndBranches(valid)) {
      for (const sample of SAMPLES.filter((s) => jsonType(s) !== jsonType(value))) {
        const answer = await send(withAt(valid, path, () => sample));
        expectRefusedAt(answer, jsonPath(path), `${jsonPath(path)} = ${JSON.stringify(sample)}`);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(150);
  });

  it('refuses NUL and every other control character in every string field, URLs included', async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const valid = validCartRequest(platformUuid);
    const strings = jsonLeavesAndBranches(valid).filter((leaf) => typeof leaf.value === 'string');
    for (const { path, value } of strings) {
      const multiLine = path.at(-1) === 'description';
      for (const control of CONTROL_CHARACTERS) {
        const text = value as string;
        const answer = await send(withAt(valid, path, () => `${text.slice(0, 5)}${control}${text.slice(5)}`));
        const what = `${jsonPath(path)} with U+${control.charCodeAt(0).toString(16).padStart(4, '0')}`;
        if (multiLine && LINE_BREAKS.has(control)) expect(answer.status, what).toBe(200);
        else expectRefusedAt(answer, jsonPath(path), what);
      }
    }
    // Keys of `extra` are text too.
    const answer = await send(withAt(valid, ['cartObject', 'cart', 'extra'], () => ({ 'bad\u0000key': 'v' })));
    expect(answer.status).toBe(400);
  });

  it('bounds nesting before any recursion, at any depth sent', async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const body = JSON.stringify(validCartRequest(platformUuid));
    for (const depth of [MAX_JSON_DEPTH, 5_000, 100_000]) {
      const answer = await send(body.replace('"extra":{', `"extra":{"deep":${'['.repeat(depth)}${']'.repeat(depth)},`));
      expectRefusedAt(answer, 'cartObject.cart.extra.deep', `${depth} levels`);
    }
  });

  it('refuses huge and non-integer numbers, duplicate keys and bytes that are not UTF-8', async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const valid = validCartRequest(platformUuid);
    const price = ['cartObject', 'cart', 'items', 0, 'price'];
    for (const bad of ['1e400', '-1e400', '19.99', '9007199254740993', '1e21']) {
      const answer = await send(JSON.stringify(withAt(valid, price, () => 0)).replace('"price":0', `"price":${bad}`));
      expectRefusedAt(answer, 'cartObject.cart.items[0].price', `price ${bad}`);
    }

    const duplicate = await send(JSON.stringify(valid).replace('"currency":"EUR"', '"currency":"EUR","currency":"USD"'));
    expectRefusedAt(duplicate, 'cartObject.cart.currency', 'a key given twice');

    const bytes = Buffer.concat([
      Buffer.from(JSON.stringify(valid).replace('T-shirt', 'T-shirt\u0001').slice(0, 40)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const res = await fetch(`${stack.apiUrl}/v2/public/api/cart/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_JSON', message: expect.stringContaining('UTF-8') });
  });

  it('survives a structure-aware mutation fuzzer with no 5xx', { timeout: 180_000 }, async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    const numRuns = Number(process.env.FUZZ_RUNS ?? 500);
    console.log(`create-cart fuzzer: seed ${seed}, ${numRuns} runs (FUZZ_SEED and FUZZ_RUNS to repeat)`);

    const mutation = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((v) => () => v),
      fc.constant(() => REMOVE),
      fc.constantFrom(...CONTROL_CHARACTERS).map((ch) => (old: unknown) => (typeof old === 'string' ? `${old}${ch}` : ch)),
      fc.constant((old: unknown) => [old]),
      fc.constant((old: unknown) => ({ unexpected: old })),
      fc.integer({ min: 1, max: 3000 }).map((depth) => () => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown),
      fc.constantFrom(1e308, -1, 0.5, Number.MAX_SAFE_INTEGER + 2, '', ' ', '\u{1F600}'.repeat(300)).map((v) => () => v),
    );
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(validCartArbitrary(platformUuid), fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), async (cart, pick, mutations) => {
        let body: unknown = cart;
        for (const mutate of mutations) {
          const places = jsonLeavesAndBranches(body);
          if (places.length === 0) break;
          body = withAt(body, places[pick % places.length]!.path, mutate);
        }
        const res = await postCart(stack.apiUrl, JSON.stringify(body), OWN_ADDRESS);
        const answer = (await res.json()) as Partial<ErrorEnvelope>;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status).toBeLessThan(500);
        if (res.status !== 200) expect(answer).toMatchObject({ code: expect.any(String), message: expect.any(String), errors: expect.any(Array) });
      }),
      { seed, numRuns },
    );
    console.log(`create-cart fuzzer: statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    reportFigures({
      suite: 'hostile-input',
      title: 'Create-cart fuzzer: structure-aware mutations of valid carts',
      seed,
      hostileInputs: numRuns,
      serverErrors: [...statuses].filter(([status]) => status >= 500).reduce((n, [, count]) => n + count, 0),
      notes: [`answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`],
    });
    expect(statuses.get(400)).toBeGreaterThan(numRuns / 2);
  });
});
