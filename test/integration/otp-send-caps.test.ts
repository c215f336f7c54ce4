import { describe, expect, it } from 'vitest';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';

// With TRUST_PROXY=1 the client is the right-most X-Forwarded-For entry: a fresh one per send, so
// only the caps under test can refuse (a botnet's many addresses).
const freshClient = () => `192.0.2.1, 198.19.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
const freshPhone = () => `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
const freshEmail = () => `cap-${Math.random().toString(36).slice(2)}@example.com`;

/** Send code from a new cart of the merchant's: public (no API key, as a botnet makes them) or keyed with its API key. */
async function sendCode(stack: TestStack, merchant: { platformUuid: string; apiKey: string }, contact: string, keyed = false) {
  const res = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), keyed ? { authorization: `Bearer ${merchant.apiKey}` } : {});
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const { cartId } = (JSON.parse(text) as { data: { cartId: string } }).data;
  const visit = await visitCheckout(stack.checkoutUrl, cartId);
  return postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact }, { 'x-forwarded-for': freshClient() });
}

async function pageMetrics(stack: TestStack): Promise<string> {
  return (await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } })).text();
}

describe('hourly email caps per merchant', () => {
  const { sent, otpSender } = recordingOtpSender();
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', EMAIL_PER_MERCHANT_PER_HOUR: '2' }, { otpSender });

  it('refuses a merchant’s third email code of the hour whatever the address and client, still sends SMS, and leaves other merchants alone', async () => {
    const capped = await stack.createMerchant();
    const other = await stack.createMerchant();
    for (let i = 0; i < 2; i++) expect((await sendCode(stack, capped, freshEmail())).status).toBe(303);
    const email = freshEmail();
    const refused = await sendCode(stack, capped, email);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toMatch(/Too many codes were sent to this email address\. Try again in \d+ minutes?, or use another contact\./);
    expect(sent.filter((m) => m.address === email)).toHaveLength(0);
    expect((await sendCode(stack, capped, freshPhone())).status).toBe(303);
    expect((await sendCode(stack, other, email)).status).toBe(303);
    expect(await pageMetrics(stack)).toMatch(/checkout_otp_sends_refused_total\{limit="email_merchant"\} 1/);
  });
});

describe('hourly email cap of the deployment', () => {
  const { otpSender } = recordingOtpSender();
  // The deployment's count is shared by every test file of the run: a cap of 1 is reached by the
  // second email of this file at the latest. No keyed share here: the whole cap is under test.
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', EMAIL_PER_DEPLOYMENT_PER_HOUR: '1', OTP_KEYED_SHARE_PERCENT: '0' }, { otpSender });

  it('refuses email codes for every merchant once the deployment reached its cap, and still sends SMS', async () => {
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await sendCode(stack, await stack.createMerchant(), freshEmail())).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await sendCode(stack, await stack.createMerchant(), freshPhone())).status).toBe(303);
    expect(await pageMetrics(stack)).toMatch(/checkout_otp_sends_refused_total\{limit="email_deployment"\} [12]/);
  });
});

// A cap far above what the rest of the run sends, with all but 1% of it kept for keyed sessions: the
// public sessions' share (10 codes an hour) is reached by this file's own sends, whatever other files
// send at the same time, and the keyed share stays open.
describe.each([
  { channel: 'sms', cap: 'SMS_PER_DEPLOYMENT_PER_HOUR', contact: freshPhone },
  { channel: 'email', cap: 'EMAIL_PER_DEPLOYMENT_PER_HOUR', contact: freshEmail },
] as const)('the keyed share of the deployment’s $channel cap', ({ channel, cap, contact }) => {
  const { otpSender } = recordingOtpSender();
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', [cap]: '1000', OTP_KEYED_SHARE_PERCENT: '99' }, { otpSender });

  it(`lets public create-cart sessions from many addresses spend only their share of ${channel} codes, while keyed sessions still get theirs`, async () => {
    const merchant = await stack.createMerchant();
    const statuses: number[] = [];
    // A botnet: a public cart and a fresh address per code, until refused (11 is past the public share).
    for (let i = 0; i < 11 && statuses.at(-1) !== 429; i++) statuses.push((await sendCode(stack, merchant, contact())).status);
    expect(statuses.at(-1)).toBe(429);
    expect(await pageMetrics(stack)).toMatch(new RegExp(`checkout_otp_sends_refused_total\\{limit="${channel}_deployment_public"\\} [1-9]`));
    // The merchant's own carts, made with its API key, still get their codes; public ones still do not.
    for (let i = 0; i < 3; i++) expect((await sendCode(stack, merchant, contact(), true)).status).toBe(303);
    expect((await sendCode(stack, merchant, contact())).status).toBe(429);
  });
});
