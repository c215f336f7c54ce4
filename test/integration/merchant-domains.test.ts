import { describe, expect, it } from 'vitest';
import { merchantCli, operatorApi } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';

describe('merchant domains: operator API and CLI', () => {
  const stack = useTestStack();
  const operator = operatorApi(stack);
  const cli = merchantCli(stack);

  const summary = async (platformUuid: string) => {
    const list = (await (await operator('GET', '/merchants')).json()) as { merchants: Array<{ platformUuid: string; domains: string[] }> };
    return list.merchants.find((m) => m.platformUuid === platformUuid);
  };

  it('registers with domains, replaces them with PUT, normalized (lower case, IDNA), and shows them in the summary', async () => {
    const created = await operator('POST', '/merchants', { name: 'Domain Store', webhookUrl: 'http://localhost:9/hooks', domains: ['Shop.Example'] });
    expect(created.status).toBe(201);
    const { platformUuid, domains } = (await created.json()) as { platformUuid: string; domains: string[] };
    expect(domains).toEqual(['shop.example']);
    expect((await summary(platformUuid))?.domains).toEqual(['shop.example']);

    const put = await operator('PUT', `/merchants/${platformUuid}/domains`, { domains: ['cdn.example', 'bücher.example', 'CDN.example'] });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ platformUuid, domains: ['cdn.example', 'xn--bcher-kva.example'] });
    expect((await summary(platformUuid))?.domains).toEqual(['cdn.example', 'xn--bcher-kva.example']);

    const cleared = await operator('PUT', `/merchants/${platformUuid}/domains`, { domains: [] });
    expect(await cleared.json()).toMatchObject({ domains: [] });
  });

  it('refuses entries that are not plain host names, naming each by its index, and changes nothing', async () => {
    const { platformUuid } = await stack.createMerchant({ domains: ['shop.example'] });
    const bad = ['https://shop.example', 'shop.example/path', 'shop.example:8443', '*.shop.example', '127.0.0.1', 'localhost', 'shop', 'sh op.example'];
    const res = await operator('PUT', `/merchants/${platformUuid}/domains`, { domains: ['ok.example', ...bad] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; errors: Array<{ path: string; message: string }> };
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e) => e.path)).toEqual(bad.map((_, i) => `domains[${i + 1}]`));
    expect(body.errors[3]!.message).toMatch(/wildcard/);
    expect((await summary(platformUuid))?.domains).toEqual(['shop.example']);

    expect((await operator('PUT', `/merchants/${platformUuid}/domains`, { domains: 'shop.example' })).status).toBe(400);
    expect((await operator('PUT', '/merchants/00000000-0000-4000-8000-000000000000/domains', { domains: [] })).status).toBe(404);
    const create = await operator('POST', '/merchants', { name: 'X', webhookUrl: 'http://localhost:9/hooks', domains: ['http://x.example'] });
    expect(create.status).toBe(400);
    expect(((await create.json()) as { errors: Array<{ path: string }> }).errors).toEqual([
      { path: 'domains[0]', message: expect.stringMatching(/plain host name/) },
    ]);
  });

  it('the CLI creates with --domain and replaces them with set-domains', async () => {
    const created = await cli(
      'create',
      '--name',
      'CLI Domains',
      '--webhook-url',
      'http://localhost:9/hooks',
      '--domain',
      'shop.example',
      '--domain',
      'WWW.Other.example',
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ domains: ['shop.example', 'www.other.example'] });
    const platformUuid = created.json.platformUuid as string;

    const set = await cli('set-domains', '--platform-uuid', platformUuid, '--domain', 'new.example');
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ platformUuid, domains: ['new.example'] });

    const bad = await cli('set-domains', '--platform-uuid', platformUuid, '--domain', 'https://new.example/');
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatch(/plain host name/);
    expect((await cli('set-domains', '--platform-uuid', platformUuid)).code).toBe(2);
    expect((await summary(platformUuid))?.domains).toEqual(['new.example']);
  });
});
