import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { useTestStack } from '../support/test-stack.js';

const HSTS = 'max-age=63072000; includeSubDomains';

/**
 * The API faces the internet over https in production, like the page: every answer, success or
 * refusal, tells the browser (and any client that honours it) never to come back over plain http.
 */
describe('Strict-Transport-Security on the API', () => {
  const stack = useTestStack();
  const appOf = (environment: 'production' | 'sandbox') =>
    createApiApp({ config: { ...stack.config, environment }, db: stack.db, temporal: stack.temporal, logger: stack.logger });
  const requests: Array<[string, RequestInit]> = [
    ['/healthz', {}],
    ['/no-such-path', {}],
    ['/v2/merchant/orders', {}],
    ['/v2/public/api/cart/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }],
    ['/openapi.json', {}],
  ];
  const send = (app: ReturnType<typeof appOf>, [path, init]: [string, RequestInit]) =>
    app.request(path, init, { incoming: { socket: { remoteAddress: '127.0.0.1' } } });

  it('is sent on every answer in production: success, not found, unauthorized, invalid', async () => {
    const app = appOf('production');
    const statuses: number[] = [];
    for (const request of requests) {
      const response = await send(app, request);
      statuses.push(response.status);
      expect(response.headers.get('strict-transport-security'), `${request[0]} (${response.status})`).toBe(HSTS);
    }
    expect(statuses).toEqual(expect.arrayContaining([200, 404, 401, 400]));
  });

  it('is not sent by a sandbox API, which may run on http://localhost', async () => {
    const app = appOf('sandbox');
    for (const request of requests) expect((await send(app, request)).headers.get('strict-transport-security')).toBeNull();
  });
});
