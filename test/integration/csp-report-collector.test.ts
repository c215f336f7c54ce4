import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listViolations } from '../../core/integrity/csp-reports.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * POST /csp-reports (web/integrity/csp-report-route.ts): both formats browsers send, deduplicated,
 * bounded in size and per address, refused with 4xx in the error envelope when malformed, and never
 * a cart or recovery token in what it stores.
 */
describe('the CSP report collector', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', RATE_LIMIT_CSP_REPORTS_PER_CLIENT: '5', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const send = (contentType: string, body: string, from = address()) =>
    fetch(`${stack.checkoutUrl}/csp-reports`, { method: 'POST', headers: { 'content-type': contentType, 'x-forwarded-for': from }, body });
  const stored = async () => JSON.stringify(await stack.db`select * from csp_reports`);
  // The run's database is shared with other files' stacks: this stack's reports are those of pages on its origin.
  const storedHere = async () => JSON.stringify(await stack.db`select * from csp_reports where starts_with(document_url, ${stack.checkoutUrl}) order by id`);
  const token = 'Tk7fQ2mZ9xLpA3vR8sW1yB4n';

  const legacy = (blocked: string) =>
    JSON.stringify({
      'csp-report': {
        'document-uri': `${stack.checkoutUrl}/?token=${token}&lang=fr#x`,
        referrer: `${stack.checkoutUrl}/?token=${token}`,
        'violated-directive': "script-src-elem 'self'",
        'effective-directive': 'script-src-elem',
        'original-policy': "default-src 'none'",
        'blocked-uri': blocked,
        'source-file': `${stack.checkoutUrl}/?token=${token}`,
        'line-number': 12,
        'column-number': 3,
        disposition: 'enforce',
        'status-code': 200,
      },
    });

  it('stores a report-uri report without the query, and the same one again as one row counted twice', async () => {
    const blocked = `https://skimmer.example/x.js?token=${token}`;
    expect((await send('application/csp-report', legacy(blocked))).status).toBe(204);
    expect((await send('application/csp-report', legacy(blocked))).status).toBe(204);
    const rows = (await listViolations(stack.db)).filter((v) => v.blockedUrl === 'https://skimmer.example/x.js');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      reportType: 'csp-violation',
      documentUrl: `${stack.checkoutUrl}/`,
      directive: 'script-src-elem',
      sourceFile: `${stack.checkoutUrl}/`,
      lineNumber: 12,
      disposition: 'enforce',
      times: 2,
    });
    expect(await stored()).not.toContain(token);
  });

  it('stores a Reporting API batch: a CSP violation, an integrity violation, and a recovery link without its token', async () => {
    const batch = [
      {
        type: 'csp-violation',
        age: 10,
        url: `${stack.checkoutUrl}/r/${token}`,
        user_agent: 'Chrome',
        body: {
          documentURL: `${stack.checkoutUrl}/r/${token}?x=1`,
          blockedURL: 'inline',
          effectiveDirective: 'script-src-elem',
          originalPolicy: "script-src 'self'",
          disposition: 'enforce',
          statusCode: 200,
          sample: '',
          lineNumber: 1,
          columnNumber: 1,
        },
      },
      {
        type: 'integrity-violation',
        age: 1,
        url: stack.checkoutUrl,
        body: { documentURL: `${stack.checkoutUrl}/?token=${token}`, blockedURL: `${stack.checkoutUrl}/assets/x.js`, destination: 'script', reportOnly: false },
      },
      { type: 'deprecation', age: 1, url: stack.checkoutUrl, body: { id: 'x' } },
    ];
    expect((await send('application/reports+json', JSON.stringify(batch))).status).toBe(204);
    const rows = await listViolations(stack.db);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reportType: 'csp-violation', documentUrl: `${stack.checkoutUrl}/r/:token`, blockedUrl: 'inline' }),
        expect.objectContaining({
          reportType: 'integrity-violation',
          documentUrl: `${stack.checkoutUrl}/`,
          blockedUrl: `${stack.checkoutUrl}/assets/x.js`,
          disposition: 'enforce',
        }),
      ]),
    );
    expect(await stored()).not.toContain(token);
  });

  it('refuses oversize, malformed, mistyped and unknown-media-type reports with 4xx in the envelope, storing nothing', async () => {
    const before = await storedHere();
    const huge = legacy(`https://x.example/${'a'.repeat(17 * 1024)}`);
    const cases: Array<[string, string, number, string]> = [
      ['application/csp-report', huge, 413, 'PAYLOAD_TOO_LARGE'],
      ['application/csp-report', '{"csp-report": ', 400, 'INVALID_JSON'],
      ['application/csp-report', JSON.stringify({ 'csp-report': { 'document-uri': 42 } }), 400, 'VALIDATION_ERROR'],
      ['application/reports+json', JSON.stringify({ type: 'csp-violation' }), 400, 'VALIDATION_ERROR'],
      ['application/reports+json', JSON.stringify([{ type: 'csp-violation', body: { documentURL: 'x' } }]), 400, 'VALIDATION_ERROR'],
      ['text/plain', legacy('inline'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ];
    for (const [type, body, status, code] of cases) {
      const res = await send(type, body);
      expect(res.status, `${type} ${body.slice(0, 40)}`).toBe(status);
      expect(await res.json()).toMatchObject({ code });
    }
    expect(await storedHere()).toBe(before);
  });

  it('refuses an address past RATE_LIMIT_CSP_REPORTS_PER_CLIENT with 429, while another address is still heard', async () => {
    const from = address();
    for (let i = 0; i < 5; i++) expect((await send('application/csp-report', legacy(`https://flood.example/${i}`), from)).status).toBe(204);
    const refused = await send('application/csp-report', legacy('https://flood.example/6'), from);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await send('application/csp-report', legacy('https://flood.example/7'))).status).toBe(204);
    expect(await stored()).not.toContain('https://flood.example/6');
  });

  it("lists them for operators on the dashboard's Page integrity, and for no merchant", async () => {
    const operator = dashboardClient(stack.checkoutUrl);
    await operator.signInAsOperator(stack.config.operatorToken!);
    const page = await operator.get('/dashboard/operator/integrity');
    expect(page.status).toBe(200);
    expect(page.body).toContain('https://skimmer.example/x.js');
    expect(page.body).not.toContain(token);
    const merchant = dashboardClient(stack.checkoutUrl);
    await merchant.signIn((await stack.createMerchant()).apiKey);
    expect((await merchant.get('/dashboard/operator/integrity')).status).not.toBe(200);
  });
});
