import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merchantCli, operatorApi } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';

const API_KEY = /^sk_sandbox_[A-Za-z0-9_-]{43}$/;
type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }>; requestId: string };

describe('merchant API keys: issued once, stored hashed, rotated and revoked; /v2/merchant/* authenticates with them', () => {
  const stack = useTestStack();
  const operator = operatorApi(stack);
  const cli = merchantCli(stack);

  const me = (authorization?: string) => fetch(`${stack.apiUrl}/v2/merchant/me`, authorization ? { headers: { authorization } } : {});

  async function expectUnauthorized(res: Response): Promise<void> {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="merchant"');
    const body = (await res.json()) as ErrorBody;
    expect(body).toMatchObject({ code: 'UNAUTHORIZED', errors: [], requestId: expect.any(String) });
    expect(body.message).toMatch(/Authorization: Bearer/);
  }

  it('shows the key once at registration and stores only its SHA-256 digest and a short prefix', async () => {
    const res = await operator('POST', '/merchants', { name: 'Key Store', webhookUrl: 'http://localhost:9/hooks', domains: ['shop.example'] });
    expect(res.status).toBe(201);
    const { platformUuid, apiKey } = (await res.json()) as { platformUuid: string; apiKey: string };
    expect(apiKey).toMatch(API_KEY);

    const rows = await stack.db<{ row: string; key_hash: Buffer; key_prefix: string }[]>`
      select row_to_json(k)::text as row, key_hash, key_prefix from merchant_api_keys k where platform_uuid = ${platformUuid}`;
    expect(rows).toHaveLength(1);
    const secretPart = apiKey.slice('sk_sandbox_'.length);
    expect(rows[0]!.row).not.toContain(secretPart);
    expect(rows[0]!.row).not.toContain(secretPart.slice(0, 12));
    expect(rows[0]!.key_hash.equals(createHash('sha256').update(apiKey).digest())).toBe(true);
    expect(rows[0]!.key_prefix).toBe(apiKey.slice(0, 'sk_sandbox_'.length + 4));
    // Nowhere else either: no table holds it in clear.
    const [anywhere] = await stack.db<{ n: number }[]>`
      select count(*)::int as n from merchants m where row_to_json(m)::text like ${'%' + secretPart + '%'}`;
    expect(anywhere!.n).toBe(0);

    const list = (await (await operator('GET', '/merchants')).json()) as { merchants: Array<Record<string, unknown>> };
    const summary = list.merchants.find((m) => m.platformUuid === platformUuid)!;
    expect(summary).toMatchObject({ apiKeyPrefix: rows[0]!.key_prefix, requireApiKeyForCarts: false });
    expect(JSON.stringify(list)).not.toContain(secretPart);
  });

  it('GET /v2/merchant/me answers the key’s merchant, and 401 without, with a wrong or another environment’s key', async () => {
    const { platformUuid, apiKey } = await stack.createMerchant({ name: 'Me Store', domains: ['me.example'] });
    const ok = await me(`Bearer ${apiKey}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      platformUuid,
      name: 'Me Store',
      environment: 'sandbox',
      webhookUrl: 'http://localhost:9/webhooks',
      domains: ['me.example'],
      requireApiKeyForCarts: false,
    });

    await expectUnauthorized(await me());
    await expectUnauthorized(await me(apiKey));
    await expectUnauthorized(await me(`Basic ${apiKey}`));
    await expectUnauthorized(await me(`Bearer ${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`));
    await expectUnauthorized(await me(`Bearer sk_sandbox_${'A'.repeat(43)}`));
    await expectUnauthorized(await me(`Bearer ${apiKey.replace('sk_sandbox_', 'sk_production_')}`));
    await expectUnauthorized(await me(`Bearer ${stack.config.operatorToken}`));
  });

  it('a production merchant’s key is refused by a sandbox API', async () => {
    const { apiKey } = await stack.createMerchant({ environment: 'production' });
    expect(apiKey).toMatch(/^sk_production_/);
    await expectUnauthorized(await me(`Bearer ${apiKey}`));
  });

  it('rotation: the new key works at once and the old one stops at once; revocation stops it; rotation issues again', async () => {
    const { platformUuid, apiKey: first } = await stack.createMerchant();
    const rotated = await operator('POST', `/merchants/${platformUuid}/rotate-api-key`);
    expect(rotated.status).toBe(200);
    const { apiKey: second, apiKeyPrefix } = (await rotated.json()) as { apiKey: string; apiKeyPrefix: string };
    expect(second).toMatch(API_KEY);
    expect(second).not.toBe(first);
    expect(second.startsWith(apiKeyPrefix)).toBe(true);
    expect((await me(`Bearer ${second}`)).status).toBe(200);
    await expectUnauthorized(await me(`Bearer ${first}`));

    const [counts] = await stack.db<{ total: number; active: number }[]>`
      select count(*)::int as total, count(*) filter (where revoked_at is null)::int as active from merchant_api_keys where platform_uuid = ${platformUuid}`;
    expect(counts).toEqual({ total: 2, active: 1 });

    const revoked = await operator('POST', `/merchants/${platformUuid}/revoke-api-key`);
    expect(await revoked.json()).toEqual({ platformUuid, revoked: true });
    await expectUnauthorized(await me(`Bearer ${second}`));
    expect(await (await operator('POST', `/merchants/${platformUuid}/revoke-api-key`)).json()).toEqual({ platformUuid, revoked: false });

    const { apiKey: third } = (await (await operator('POST', `/merchants/${platformUuid}/rotate-api-key`)).json()) as { apiKey: string };
    expect((await me(`Bearer ${third}`)).status).toBe(200);
    await expectUnauthorized(await me(`Bearer ${second}`));

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await operator('POST', `/merchants/${unknown}/rotate-api-key`)).status).toBe(404);
    expect((await operator('POST', `/merchants/${unknown}/revoke-api-key`)).status).toBe(404);
    expect((await fetch(`${stack.apiUrl}/operator/merchants/${platformUuid}/rotate-api-key`, { method: 'POST' })).status).toBe(401);
  });

  it('a deactivated merchant’s key is refused', async () => {
    const { platformUuid, apiKey } = await stack.createMerchant();
    await operator('POST', `/merchants/${platformUuid}/deactivate`);
    await expectUnauthorized(await me(`Bearer ${apiKey}`));
  });

  it('the CLI prints the key at create, rotates, revokes and sets the create-cart requirement', async () => {
    const created = await cli('create', '--name', 'CLI Keys', '--webhook-url', 'http://localhost:9/hooks');
    expect(created.code).toBe(0);
    const platformUuid = created.json.platformUuid as string;
    const first = created.json.apiKey as string;
    expect(first).toMatch(API_KEY);
    expect((await me(`Bearer ${first}`)).status).toBe(200);

    const rotated = await cli('rotate-api-key', '--platform-uuid', platformUuid);
    expect(rotated.code).toBe(0);
    const second = rotated.json.apiKey as string;
    expect((await me(`Bearer ${second}`)).status).toBe(200);
    await expectUnauthorized(await me(`Bearer ${first}`));

    expect((await cli('set-require-api-key', '--platform-uuid', platformUuid, '--on')).json).toMatchObject({ requireApiKeyForCarts: true });
    expect(await (await me(`Bearer ${second}`)).json()).toMatchObject({ requireApiKeyForCarts: true });
    expect((await cli('set-require-api-key', '--platform-uuid', platformUuid, '--off')).json).toMatchObject({ requireApiKeyForCarts: false });
    expect((await cli('set-require-api-key', '--platform-uuid', platformUuid)).code).toBe(2);
    expect((await cli('set-require-api-key', '--platform-uuid', platformUuid, '--on', '--off')).code).toBe(2);

    expect((await cli('revoke-api-key', '--platform-uuid', platformUuid)).json).toEqual({ platformUuid, revoked: true });
    await expectUnauthorized(await me(`Bearer ${second}`));
  });
});
