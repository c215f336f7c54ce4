import { describe, expect, it } from 'vitest';
import { checkDomain, fetchVerificationFile, type DomainCheckDeps } from '../../core/merchants/domain-verification.js';

const TOKEN = 'hcv-0123456789abcdef0123456789abcdef';
const noTxt: DomainCheckDeps['resolveTxt'] = () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
const answering =
  (status: number, body = ''): DomainCheckDeps['fetchVerificationFile'] =>
  () =>
    Promise.resolve({ status, body });

describe('checkDomain: the token at the well-known path, or in the TXT record', () => {
  it('verifies a 200 holding the token on a line of its own, among others', async () => {
    expect(await checkDomain('shop.example', TOKEN, { fetchVerificationFile: answering(200, `hcv-other\r\n  ${TOKEN}  \n`), resolveTxt: noTxt })).toEqual({
      verified: true,
      verifiedBy: 'well-known',
    });
  });

  it.each([
    ['a redirect, which is never followed', answering(301), 'answered HTTP 301'],
    ['a 404', answering(404), 'answered HTTP 404'],
    ['a 200 with the token inside a longer line', answering(200, `token=${TOKEN}`), "does not hold this merchant's token"],
  ])('does not verify %s, and says why (a conclusive answer)', async (_, fetchVerificationFile, problem) => {
    expect(await checkDomain('shop.example', TOKEN, { fetchVerificationFile, resolveTxt: noTxt })).toEqual({
      verified: false,
      conclusive: true,
      problem: expect.stringContaining(problem),
    });
  });

  it('verifies the TXT record when the file is absent, and calls a check nothing answered inconclusive', async () => {
    const txt: DomainCheckDeps['resolveTxt'] = (name) =>
      Promise.resolve(name === '_hosted-checkout.shop.example' ? [['hosted-checkout-verification=', TOKEN]] : []);
    expect(await checkDomain('shop.example', TOKEN, { fetchVerificationFile: answering(404), resolveTxt: txt })).toEqual({
      verified: true,
      verifiedBy: 'dns-txt',
    });
    const down = await checkDomain('shop.example', TOKEN, {
      fetchVerificationFile: () => Promise.resolve({ error: 'timeout', detail: 'connect ETIMEDOUT' }),
      resolveTxt: () => Promise.reject(Object.assign(new Error('ESERVFAIL'), { code: 'ESERVFAIL' })),
    });
    expect(down).toMatchObject({ verified: false, conclusive: false, problem: expect.stringContaining('could not be fetched') });
  });
});

describe('fetchVerificationFile goes through the webhooks’ outbound guard', () => {
  it.each([
    ['a private address', 'https://10.0.0.1/.well-known/hosted-checkout-verification'],
    ['the cloud metadata service', 'https://169.254.169.254/.well-known/hosted-checkout-verification'],
    ['a name that resolves to loopback', 'https://localhost/.well-known/hosted-checkout-verification'],
    ['plain http', 'http://93.184.216.34/.well-known/hosted-checkout-verification'],
  ])('refuses %s before any request', async (_, url) => {
    expect(await fetchVerificationFile(url)).toEqual({ error: 'unreachable_host', detail: expect.any(String) });
  });
});

describe('a check nothing answered is told as a category, never in our resolver’s words', () => {
  it.each([
    ['a name that does not resolve', 'getaddrinfo ENOTFOUND db.internal'],
    ['a name that resolves to an address we may not reach', 'db.internal resolves to 10.0.0.5, which production webhooks of this deployment may not reach'],
  ])('%s reads the same', async (_, detail) => {
    const fetchVerificationFile: DomainCheckDeps['fetchVerificationFile'] = () => Promise.resolve({ error: 'unreachable_host', detail });
    const result = await checkDomain('db.internal', TOKEN, { fetchVerificationFile, resolveTxt: noTxt });
    expect(result).toMatchObject({
      verified: false,
      problem: expect.stringContaining('could not be fetched (unreachable_host: '),
      detail,
    });
    if (result.verified) return;
    for (const word of ['getaddrinfo', 'ENOTFOUND', '10.0.0.5', 'resolves to']) expect(result.problem).not.toContain(word);
  });

  it('fetchVerificationFile says a category and keeps what the resolver said for the log', async () => {
    const answer = await fetchVerificationFile('https://no-such-internal-host.invalid/.well-known/hosted-checkout-verification');
    expect(answer).toEqual({ error: 'unreachable_host', detail: expect.stringContaining('ENOTFOUND') });
  });
});
