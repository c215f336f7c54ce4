import { Hono } from 'hono';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCartAdmission } from '../../api/admission/create-cart-admission.js';
import { onError } from '../../api/errors.js';
import { createLogger } from '../../core/logger.js';

const THRESHOLDS = { shedAboveLagMs: 200, admitBelowLagMs: 50, retryAfterSeconds: 2 };

/** A route behind the guard, with the lag and the clock set by the test, and what it counted and logged. */
function guarded(shedding: boolean) {
  const state = { lagMs: 0, nowMs: 0, shed: 0, logLines: [] as string[] };
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      state.logLines.push(chunk.toString());
      done();
    },
  });
  const app = new Hono();
  app.onError(onError);
  app.post(
    '/cart',
    createCartAdmission({
      config: { environment: 'sandbox', admission: { shedding, ...THRESHOLDS } },
      logger: createLogger({ level: 'warn', name: 'test', destination }),
      shed: { inc: () => state.shed++ },
      lagMs: () => state.lagMs,
      now: () => state.nowMs,
    }),
    (c) => c.json({ created: true }),
  );
  const post = () => app.request('/cart', { method: 'POST' });
  return { state, post };
}

describe('createCartAdmission (the create-cart route’s guard)', () => {
  it('sheds with 503 OVERLOADED and Retry-After in the envelope, counts each shed request and logs only the turns', async () => {
    const { state, post } = guarded(true);
    expect((await post()).status).toBe(200);
    state.lagMs = 250;
    const shed = await post();
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('2');
    expect(await shed.json()).toMatchObject({ code: 'OVERLOADED', errors: [] });
    expect((await post()).status).toBe(503);
    state.lagMs = 10;
    state.nowMs = 2000;
    expect((await post()).status).toBe(200);
    expect(state.shed).toBe(2);
    expect(state.logLines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'create-cart shedding began: the event loop runs late',
      'create-cart shedding ended',
    ]);
  });

  it('with ADMISSION_SHEDDING=off admits every request, however late the loop runs', async () => {
    const { state, post } = guarded(false);
    state.lagMs = 10_000;
    expect((await post()).status).toBe(200);
    expect(state.shed).toBe(0);
  });
});
