import { describe, expect, it } from 'vitest';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

describe('GET /metrics', () => {
  const stack = useTestStack();

  const scrape = (token?: string) => fetch(`${stack.apiUrl}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

  it('is for the scrape token only: 401 in the error envelope without it', async () => {
    const res = await scrape();
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED', requestId: res.headers.get('x-request-id') });
    expect((await scrape('not-the-token-not-the-token')).status).toBe(401);
  });

  it('counts carts created and times requests by route pattern, never by raw path', async () => {
    const platformUuid = (await stack.createMerchant()).platformUuid;
    const key = { 'idempotency-key': 'metrics-key-0001' };
    expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), key)).status).toBe(200);
    expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), key)).status).toBe(200); // a replay: not a new cart
    expect((await postCart(stack.apiUrl, validCartRequest(platformUuid))).status).toBe(200);
    expect((await fetch(`${stack.apiUrl}/no/such/path/42`)).status).toBe(404);

    const res = await scrape(stack.config.metricsToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain('checkout_carts_created_total{environment="sandbox"} 2');
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v2\/public\/api\/cart",status="200"\} 3/);
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1');
    expect(text).not.toContain('/no/such/path');
    expect(text).toContain('process_resident_memory_bytes');
  });
});
