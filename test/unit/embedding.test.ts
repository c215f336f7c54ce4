import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { EMBED_HEADER, frameAncestorSources, isEmbedded } from '../../web/checkout/embedding.js';
import { securityHeaders, type WebEnv } from '../../web/security-headers.js';

describe('frame-ancestors of the embedded page', () => {
  it("names each verified domain with its subdomains, the default port only in production, never '*'", () => {
    expect(frameAncestorSources(['shop.example', 'pay.other.example'], false)).toEqual([
      'shop.example',
      '*.shop.example',
      'pay.other.example',
      '*.pay.other.example',
    ]);
    expect(frameAncestorSources([], false)).toEqual([]);
  });

  it('adds loopback and any port in sandbox', () => {
    expect(frameAncestorSources(['shop.example'], true)).toEqual(['shop.example:*', '*.shop.example:*', 'localhost:*', '127.0.0.1:*']);
  });
});

describe('the framing headers', () => {
  const app = new Hono<WebEnv>();
  app.use(securityHeaders({ production: true, reportingApi: true }));
  app.get('/redirect-page', (c) => c.text('ok'));
  app.get('/embedded', (c) => {
    if (isEmbedded(c)) c.set('frameAncestors', frameAncestorSources(['shop.example'], false));
    return c.text('ok');
  });
  const csp = (res: Response) => res.headers.get('content-security-policy') ?? '';

  it("keeps the redirect page unframable: frame-ancestors 'none' and X-Frame-Options DENY", async () => {
    const res = await app.request('/redirect-page');
    expect(csp(res)).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('lets the embedded page be framed by the proven domains alone, told by embed=1, Sec-Fetch-Dest or its htmx header', async () => {
    const requests: Array<{ path: string; headers?: Record<string, string> }> = [
      { path: '/embedded?embed=1' },
      { path: '/embedded', headers: { 'Sec-Fetch-Dest': 'iframe' } },
      { path: '/embedded', headers: { [EMBED_HEADER]: '1' } },
    ];
    for (const init of requests) {
      const res = await app.request(init.path, { headers: init.headers ?? {} });
      expect(csp(res)).toContain('frame-ancestors shop.example *.shop.example;');
      expect(res.headers.get('x-frame-options')).toBeNull();
    }
    const plain = await app.request('/embedded', { headers: { 'Sec-Fetch-Dest': 'document' } });
    expect(csp(plain)).toContain("frame-ancestors 'none'");
  });
});
