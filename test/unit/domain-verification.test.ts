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
      fetchVerificationFile: () => Promise.resolve({ error: 'connect ETIMEDOUT' }),
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
    expect(await fetchVerificationFile(url)).toEqual({ error: expect.stringMatching(/public internet addresses|https/) });
  });
});
