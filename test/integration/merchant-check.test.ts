import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../core/merchants/api-keys.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { merchantCli } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('operator CLI: merchant check, what a merchant still lacks', () => {
  const stack = useTestStack();
  const cli = merchantCli(stack);
  let receiver: WebhookReceiver;
  let failing: WebhookReceiver;
  beforeAll(async () => {
    [receiver, failing] = await Promise.all([startWebhookReceiver(), startWebhookReceiver(() => ({ status: 503 }))]);
  });
  afterAll(async () => {
    await Promise.all([receiver?.close(), failing?.close()]);
  });

  const checksOf = (json: Record<string, unknown>) => Object.fromEntries((json.checks as Array<{ check: string; ok: boolean }>).map((c) => [c.check, c.ok]));

  it('finds a sandbox merchant ready once its endpoint answers 2xx to a signed test event it can verify', async () => {
    const created = await cli('create', '--name', 'Ready Store', '--webhook-url', receiver.url, '--domain', 'store.example');
    const { platformUuid, webhookSecret } = created.json as { platformUuid: string; webhookSecret: string };
    const before = receiver.requests.length;

    const report = await cli('check', '--platform-uuid', platformUuid);
    expect(report.code).toBe(0);
    expect(report.json).toMatchObject({ platformUuid, name: 'Ready Store', environment: 'sandbox', ready: true, missing: [] });
    expect(checksOf(report.json)).toEqual({ active: true, environment: true, domains: true, webhookSecret: true, apiKey: true, endpoint: true });

    const [testEvent] = receiver.requests.slice(before);
    expect(testEvent?.headers['x-client-event']).toBe('webhook_test');
    expect(verifyWebhook(testEvent!.rawBody, testEvent!.headers, webhookSecret)).toMatchObject({ valid: true });
    // A test event is never recorded as one of the merchant's events.
    const stored = await stack.db`select 1 from webhook_events where platform_uuid = ${platformUuid}`;
    expect(stored).toHaveLength(0);
  });

  it('exits 1 and names each missing thing: an endpoint answering 503, no API key', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Unready Store', webhookUrl: failing.url });
    await revokeApiKey(stack.db, platformUuid);

    const report = await cli('check', '--platform-uuid', platformUuid);
    expect(report.code).toBe(1);
    expect(report.json).toMatchObject({ ready: false, missing: ['apiKey', 'endpoint'] });
    const endpoint = (report.json.checks as Array<{ check: string; detail: string }>).find((c) => c.check === 'endpoint');
    expect(endpoint?.detail).toContain('HTTP 503');
  });

  it('tells a production merchant on the sandbox deployment to register on production, and that it needs domains', async () => {
    const { platformUuid } = await stack.createMerchant({
      name: 'Live Store',
      environment: 'production',
      webhookUrl: 'https://merchant.invalid/webhooks',
      domains: [],
    });
    const report = await cli('check', '--platform-uuid', platformUuid);
    expect(report.code).toBe(1);
    expect(report.json).toMatchObject({ environment: 'production', ready: false, missing: ['environment', 'domains', 'endpoint'] });
    // Taking public carts is a warning, not a missing check: it does not stop payments.
    expect(report.json.warnings).toEqual([{ warning: 'publicCarts', detail: expect.stringContaining('set-require-api-key') as string }]);

    await cli('set-require-api-key', '--platform-uuid', platformUuid, '--on');
    expect((await cli('check', '--platform-uuid', platformUuid)).json.warnings).toEqual([]);
  });

  it('does not warn a sandbox merchant about public carts', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Sandbox Store', webhookUrl: receiver.url });
    expect((await cli('check', '--platform-uuid', platformUuid)).json).toMatchObject({ ready: true, warnings: [] });
  });

  it('refuses an unknown merchant with an error, not a report', async () => {
    const report = await cli('check', '--platform-uuid', '00000000-0000-4000-8000-000000000000');
    expect(report.code).toBe(1);
    expect(report.json).toEqual({ error: 'no merchant 00000000-0000-4000-8000-000000000000' });
  });
});
