import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { OPERATOR_COOKIE } from '../../api/codec/routes.js';
import { Registry } from 'prom-client';
import { createWorkerMetricsApp } from '../../worker/metrics.js';
import { useTestStack } from '../support/test-stack.js';

describe('the operator and metrics tokens: sessions bound to one, guesses limited per address, each opening only its own', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: '3' });
  const token = () => stack.config.operatorToken!;
  const metricsToken = () => stack.config.metricsToken!;
  // The worker's /metrics, on its own port in production, in-process here.
  const workerMetricsCall = (forwardedFor: string, authorization: string) =>
    createWorkerMetricsApp({ config: stack.config, db: stack.db, registry: new Registry() }).request(
      '/metrics',
      { headers: { authorization, 'x-forwarded-for': forwardedFor } },
      { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
    );
  const fresh = () => `203.0.113.${Math.floor(Math.random() * 254) + 1}, 198.18.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
  const call = (path: string, forwardedFor: string, authorization: string) =>
    fetch(`${stack.apiUrl}${path}`, {
      method: path.startsWith('/codec') ? 'POST' : 'GET',
      headers: { authorization, 'x-forwarded-for': forwardedFor, 'content-type': 'application/json' },
      ...(path.startsWith('/codec') ? { body: '{"payloads":[]}' } : {}),
    });

  it('ends codec sessions when OPERATOR_TOKEN changes', async () => {
    // An API process of the same deployment (same data keys), with this operator token.
    const codecWith = (operatorToken: string) =>
      createApiApp({ config: { ...stack.config, operatorToken }, db: stack.db, temporal: stack.temporal, logger: stack.logger });
    const decode = async (app: ReturnType<typeof codecWith>, cookie: string) =>
      app.request(
        '/codec/decode',
        { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-forwarded-for': address }, body: '{"payloads":[]}' },
        { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
      );

    // Each from an address of its own: wrong tokens from other test files count against 127.0.0.1.
    const address = fresh();
    const issued = await fetch(`${stack.apiUrl}/codec/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token()}`, 'x-forwarded-for': address },
    });
    expect(issued.status).toBe(204);
    const cookie = issued.headers.get('set-cookie')!.split(';')[0]!;
    expect(cookie.startsWith(`${OPERATOR_COOKIE}=`)).toBe(true);

    // The same data keys and token (another process of the deployment): the session works.
    expect((await decode(codecWith(token()), cookie)).status).toBe(200);
    // The token changed (after a leak, say), the data keys did not: the session is refused.
    expect((await decode(codecWith('a-new-operator-token-9876543210'), cookie)).status).toBe(401);
  });

  it('refuses an address after 3 wrong tokens on /operator, /metrics and /codec together, even with the right one; others are not affected', async () => {
    const guesser = fresh();
    expect((await call('/operator/merchants', guesser, 'Bearer wrong-guess-1-0123456789')).status).toBe(401);
    expect((await call('/metrics', guesser, 'Bearer wrong-guess-2-0123456789')).status).toBe(401);
    expect((await call('/codec/decode', guesser, 'Bearer wrong-guess-3-0123456789')).status).toBe(401);

    const refused = await call('/operator/merchants', guesser, `Bearer ${token()}`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await call('/metrics', guesser, 'Bearer wrong-guess-4-0123456789')).status).toBe(429);
    // The page's /metrics shares the count, refusing even the right scrape token.
    const pageMetrics = await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken()}`, 'x-forwarded-for': guesser } });
    expect(pageMetrics.status).toBe(429);
    // So does the worker's, on its own port (in-process here).
    const workerMetrics = await workerMetricsCall(guesser, `Bearer ${metricsToken()}`);
    expect(workerMetrics.status).toBe(429);

    // The operator's own address, right token: never counted, never refused.
    const operator = fresh();
    for (let i = 0; i < 5; i++) expect((await call('/operator/merchants', operator, `Bearer ${token()}`)).status).toBe(200);
    expect((await call('/metrics', operator, `Bearer ${metricsToken()}`)).status).toBe(200);
  });

  it('keeps metrics and operators apart: every /metrics refuses OPERATOR_TOKEN and takes METRICS_TOKEN, which opens neither /operator nor /codec', async () => {
    const address = fresh();
    const pageMetrics = (authorization: string) => fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization, 'x-forwarded-for': address } });

    const apiRefused = await call('/metrics', address, `Bearer ${token()}`);
    expect(apiRefused.status).toBe(401);
    expect(apiRefused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await apiRefused.json()).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringContaining('METRICS_TOKEN') });
    const pageRefused = await pageMetrics(`Bearer ${token()}`);
    expect(pageRefused.status).toBe(401);
    expect(await pageRefused.text()).toContain('METRICS_TOKEN');
    expect((await workerMetricsCall(address, `Bearer ${token()}`)).status).toBe(401);

    // Three wrong tokens used this address's allowance: the scrape token's own checks come from another.
    const scraper = fresh();
    const api = await call('/metrics', scraper, `Bearer ${metricsToken()}`);
    expect(api.status).toBe(200);
    expect(await api.text()).toContain('http_request_duration_seconds');
    const page = await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken()}`, 'x-forwarded-for': scraper } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('checkout_otp_sends_refused_total');
    expect((await workerMetricsCall(scraper, `Bearer ${metricsToken()}`)).status).toBe(200);

    const elsewhere = fresh();
    expect((await call('/operator/merchants', elsewhere, `Bearer ${metricsToken()}`)).status).toBe(401);
    expect((await call('/codec/decode', elsewhere, `Bearer ${metricsToken()}`)).status).toBe(401);
  });
});
