import { describe, expect, it } from 'vitest';
import { createEncryptionCodec, payloadToJson } from '../../core/temporal/codec.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { useTestStack } from '../support/test-stack.js';

describe("the dashboard's codec for the Temporal UI it serves", () => {
  const stack = useTestStack({ TRUST_PROXY: '1' });
  const post = (path: string, body: string, cookie = '') =>
    fetch(`${stack.checkoutUrl}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json', cookie }, body });
  const cookieOf = (client: ReturnType<typeof dashboardClient>) => `dashboard_session=${client.jar.get('dashboard_session')}`;

  it("decodes and encodes for an operator's dashboard session, and for nobody else", async () => {
    const clear = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"contact":"jane.doe@example.com"}') };
    const [sealed] = await createEncryptionCodec(stack.config.keyring).encode([clear]);
    const body = JSON.stringify({ payloads: [payloadToJson(sealed!)] });

    expect((await post('/dashboard/codec/decode', body)).status).toBe(303);
    const merchant = dashboardClient(stack.checkoutUrl);
    await merchant.signIn((await stack.createMerchant()).apiKey);
    const refused = await post('/dashboard/codec/decode', body, cookieOf(merchant));
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/dashboard/sign-in/operator');

    const operator = dashboardClient(stack.checkoutUrl);
    expect((await operator.signInAsOperator(stack.config.operatorToken!)).status).toBe(303);
    const decoded = await post('/dashboard/codec/decode', body, cookieOf(operator));
    expect(decoded.status).toBe(200);
    expect(await decoded.json()).toEqual({ payloads: [payloadToJson(clear)] });
    const encoded = (await (await post('/dashboard/codec/encode', JSON.stringify({ payloads: [payloadToJson(clear)] }), cookieOf(operator))).json()) as {
      payloads: Array<{ metadata: Record<string, string> }>;
    };
    expect(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');

    const bad = await post('/dashboard/codec/decode', '{"payloads":"no"}', cookieOf(operator));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('{\\"payloads\\":[…]}');
  });

  it('serves no Temporal UI without TEMPORAL_UI_UPSTREAM', async () => {
    const operator = dashboardClient(stack.checkoutUrl);
    await operator.signInAsOperator(stack.config.operatorToken!);
    expect((await operator.get('/dashboard/temporal/')).status).toBe(404);
  });
});
