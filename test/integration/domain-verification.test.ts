import { describe, expect, it } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import {
  fetchVerificationFile as realFetchVerificationFile,
  type DomainVerificationView,
  type FetchVerificationFile,
  type ResolveTxt,
} from '../../core/merchants/domain-verification.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { ensureDomainRecheckSchedule } from '../../workflows/domain-verification/client.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { merchantCli, operatorApi } from '../support/operator.js';
import { useOwnDatabase } from '../support/own-database.js';
import { answeringProcessor } from '../support/payment-processors.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Registered domains are self-declared: production takes a cart on one only once the merchant has
 * proved it controls it (core/merchants/domain-verification.ts). The worker's fetch and TXT lookup are
 * the test's own: `files` is what https://<domain>/.well-known/hosted-checkout-verification answers,
 * `txt` the TXT records by name. No network.
 */

const files = new Map<string, string>();
const txt = new Map<string, string[][]>();
const fetched: string[] = [];
/** Hosts whose file the real fetch (through the outbound guard, with our own resolver) is asked for. */
const REAL_FETCH = new Set(['db.internal']);
const fetchVerificationFile: FetchVerificationFile = (url) => {
  fetched.push(url);
  if (REAL_FETCH.has(new URL(url).hostname)) return realFetchVerificationFile(url);
  const body = files.get(url);
  return Promise.resolve(body === undefined ? { status: 404, body: 'Not Found' } : { status: 200, body });
};
const resolveTxt: ResolveTxt = (name) => {
  const records = txt.get(name);
  return records ? Promise.resolve(records) : Promise.reject(Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' }));
};

/** What our resolver or a socket would say: a merchant sees none of it. */
const RESOLVER_WORDS = ['getaddrinfo', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'resolves to'];

type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }> };
type Summary = { platformUuid: string; domains: string[]; domainVerification: DomainVerificationView[] };

/** validCartRequest with every merchant-facing URL on `host`. */
function cartOn(platformUuid: string, host: string): CreateCartRequest {
  const body = validCartRequest(platformUuid);
  body.cartObject.store.url = `https://${host}`;
  body.cartObject.store.logo = `https://${host}/logo.png`;
  body.cartObject.cart.merchantUrls = { successUrl: `https://${host}/ok`, failureUrl: `https://${host}/ko` };
  return body;
}

const FIELDS = ['cartObject.store.url', 'cartObject.store.logo', 'cartObject.cart.merchantUrls.successUrl', 'cartObject.cart.merchantUrls.failureUrl'];

describe('production takes carts only on domains the merchant has verified', () => {
  // The daily re-check reaches every production domain of its database: its own keeps the other files' merchants out of it.
  const database = useOwnDatabase('domain_verification');
  const otpSender: MessageSender = { name: 'silent', send: async () => {} };
  const paymentProcessor = answeringProcessor('unused', () => Promise.reject(new Error('not used by these tests')));
  const stack = useTestStack(
    { CHECKOUT_ENV: 'production', DATABASE_URL: database.url, RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' },
    { otpSender, paymentProcessor, fetchVerificationFile, resolveTxt },
  );
  const operator = operatorApi(stack);
  const cli = merchantCli(stack);

  const register = async (domains: string[]) => {
    const res = await operator('POST', '/merchants', { name: 'Shop Ltd', environment: 'production', webhookUrl: 'https://93.184.216.34/hooks', domains });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as Summary;
  };
  const summary = async (platformUuid: string) =>
    ((await (await operator('GET', '/merchants')).json()) as { merchants: Summary[] }).merchants.find((m) => m.platformUuid === platformUuid)!;
  const statusOf = async (platformUuid: string, domain: string) => (await summary(platformUuid)).domainVerification.find((d) => d.domain === domain)!;
  const verify = async (platformUuid: string) => {
    const res = await operator('POST', `/merchants/${platformUuid}/domains/verify`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as Summary;
  };

  it('refuses a production cart on a registered but unverified domain, naming each field and the fix', async () => {
    const merchant = await register(['unverified.example']);
    // Checked at registration: nothing published yet, so a token to publish and the reason.
    expect(fetched).toContain('https://unverified.example/.well-known/hosted-checkout-verification');
    const [domain] = merchant.domainVerification;
    expect(domain).toMatchObject({
      domain: 'unverified.example',
      status: 'unverified',
      token: expect.stringMatching(/^hcv-[0-9a-f]{32}$/),
      wellKnownUrl: 'https://unverified.example/.well-known/hosted-checkout-verification',
      txtRecord: { name: '_hosted-checkout.unverified.example', value: `hosted-checkout-verification=${domain!.token}` },
      verifiedAt: null,
      problem: expect.stringContaining('answered HTTP 404'),
    });

    const res = await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'www.unverified.example'));
    expect(res.status).toBe(400);
    const error = (await res.json()) as ErrorBody;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(/unverified\.example is registered but not verified.*\.well-known\/hosted-checkout-verification/);
    expect(error.errors).toEqual(
      FIELDS.map((path) => ({
        path,
        message: expect.stringContaining(
          "host www.unverified.example is on this merchant's registered domain unverified.example, which is not verified: publish the domain's token at https://unverified.example/.well-known/hosted-checkout-verification",
        ),
      })),
    );
    const carts = await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${merchant.platformUuid}`;
    expect(carts).toEqual([{ n: 0 }]);
  });

  it('accepts the cart once the token is published at the well-known path and checked (operator API and CLI)', async () => {
    const merchant = await register(['shop.example']);
    const { token } = merchant.domainVerification[0]!;
    expect((await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'shop.example'))).status).toBe(400);

    // A file that holds someone else's token, or ours with other words on the line, does not count.
    files.set('https://shop.example/.well-known/hosted-checkout-verification', `hcv-someoneelse\ntoken: ${token}\n`);
    expect((await verify(merchant.platformUuid)).domainVerification[0]).toMatchObject({ status: 'unverified', problem: expect.stringContaining('token') });

    files.set('https://shop.example/.well-known/hosted-checkout-verification', `hcv-someoneelse\n${token}\n`);
    const checked = await cli('verify-domains', '--platform-uuid', merchant.platformUuid);
    expect(checked.code, checked.stderr).toBe(0);
    expect((checked.json as unknown as Summary).domainVerification[0]).toMatchObject({ status: 'verified', verifiedBy: 'well-known', problem: null });

    const res = await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'www.shop.example'));
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('accepts a domain verified by its DNS TXT record instead', async () => {
    const merchant = await register(['dns.example']);
    const { token } = merchant.domainVerification[0]!;
    txt.set('_hosted-checkout.dns.example', [['v=spf1 -all'], ['hosted-checkout-verification=', token]]);
    expect((await verify(merchant.platformUuid)).domainVerification[0]).toMatchObject({ status: 'verified', verifiedBy: 'dns-txt' });
    expect((await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'dns.example'))).status).toBe(200);
  });

  it('unverifies, on the daily re-check, a domain whose file disappeared, and refuses its carts again', async () => {
    const merchant = await register(['gone.example', 'kept.example']);
    const [gone, kept] = merchant.domainVerification;
    files.set('https://gone.example/.well-known/hosted-checkout-verification', gone!.token);
    files.set('https://kept.example/.well-known/hosted-checkout-verification', kept!.token);
    expect((await verify(merchant.platformUuid)).domainVerification.map((d) => d.status)).toEqual(['verified', 'verified']);
    expect((await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'gone.example'))).status).toBe(200);
    const verifiedAt = (await statusOf(merchant.platformUuid, 'kept.example')).verifiedAt;

    files.delete('https://gone.example/.well-known/hosted-checkout-verification');
    const schedule = await ensureDomainRecheckSchedule(stack.temporal.client, stack.config);
    // A second worker starting finds the schedule there instead of failing.
    expect((await ensureDomainRecheckSchedule(stack.temporal.client, stack.config)).scheduleId).toBe(schedule.scheduleId);
    expect((await schedule.describe()).action).toMatchObject({ type: 'startWorkflow', workflowType: 'recheckDomainVerifications' });
    const before = (await statusOf(merchant.platformUuid, 'kept.example')).checkedAt;
    await schedule.trigger();
    await waitFor(async () => ((await statusOf(merchant.platformUuid, 'kept.example')).checkedAt !== before ? true : undefined), {
      what: 'the re-check to reach the merchant',
      timeoutMs: 30_000,
    });
    await waitFor(async () => ((await statusOf(merchant.platformUuid, 'gone.example')).status === 'unverified' ? true : undefined), {
      what: 'the domain whose file disappeared to be unverified',
    });
    await schedule.delete();

    expect(await statusOf(merchant.platformUuid, 'gone.example')).toMatchObject({ verifiedAt: null, problem: expect.stringContaining('HTTP 404') });
    // The other keeps its verification, from when it was first verified.
    expect(await statusOf(merchant.platformUuid, 'kept.example')).toMatchObject({ status: 'verified', verifiedAt });
    const refused = await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'gone.example'));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as ErrorBody).errors[0]!.message).toContain('which is not verified');
    expect((await postCart(stack.apiUrl, cartOn(merchant.platformUuid, 'kept.example'))).status).toBe(200);
  });

  it('tells the merchant why a check failed as a category, never what our resolver said (dashboard and operator API alike)', async () => {
    const merchant = (await register(['db.internal'])) as Summary & { apiKey: string };
    const { problem } = merchant.domainVerification[0]!;
    expect(problem).toContain('https://db.internal/.well-known/hosted-checkout-verification could not be fetched (unreachable_host: ');
    for (const word of RESOLVER_WORDS) expect(problem, `the stored problem names "${word}"`).not.toContain(word);

    const dashboard = dashboardClient(stack.checkoutUrl);
    expect((await dashboard.signIn(merchant.apiKey)).status).toBe(303);
    const page = await dashboard.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    expect(page.body).toContain('could not be fetched (unreachable_host: ');
    for (const word of RESOLVER_WORDS) expect(page.body, `the dashboard names "${word}"`).not.toContain(word);
  });

  it('keeps a kept domain’s token and verification when the list changes; a removed and re-added one starts over', async () => {
    const merchant = await register(['a.example', 'b.example']);
    const [a, b] = merchant.domainVerification;
    files.set('https://a.example/.well-known/hosted-checkout-verification', a!.token);
    files.set('https://b.example/.well-known/hosted-checkout-verification', b!.token);
    await verify(merchant.platformUuid);
    files.delete('https://b.example/.well-known/hosted-checkout-verification');

    const put = await operator('PUT', `/merchants/${merchant.platformUuid}/domains`, { domains: ['a.example', 'c.example'] });
    expect(put.status).toBe(200);
    const after = (await put.json()) as Summary;
    expect(after.domainVerification.find((d) => d.domain === 'a.example')).toMatchObject({ token: a!.token, status: 'verified' });
    expect(after.domainVerification.find((d) => d.domain === 'c.example')).toMatchObject({ status: 'unverified' });

    const readded = (await (await operator('PUT', `/merchants/${merchant.platformUuid}/domains`, { domains: ['a.example', 'b.example'] })).json()) as Summary;
    const newB = readded.domainVerification.find((d) => d.domain === 'b.example')!;
    expect(newB.token).not.toBe(b!.token);
    expect(newB.status).toBe('unverified');
  });
});
