import { beforeAll, describe, expect, it } from 'vitest';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';

// With TRUST_PROXY=1 the client is the right-most X-Forwarded-For entry: a fresh one per send, so
// only the limits under test can refuse.
const freshClient = () => `192.0.2.1, 198.19.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
const freshPhone = () => `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
const freshMailbox = () => `pump-${Math.random().toString(36).slice(2)}`;

/** Send code from a new cart of `platformUuid`'s, as a browser does. */
async function sendCode(stack: TestStack, platformUuid: string, contact: string, cart: { country?: string } = {}) {
  const body = validCartRequest(platformUuid);
  if (cart.country) body.cartObject.cart.country = cart.country;
  const cartId = await createCartId(stack.apiUrl, body);
  const visit = await visitCheckout(stack.checkoutUrl, cartId);
  return postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact }, { 'x-forwarded-for': freshClient() });
}

async function pageMetrics(stack: TestStack): Promise<string> {
  return (await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } })).text();
}

describe('contacts read strictly, sub-addresses counted as their mailbox', () => {
  const { sent, otpSender } = recordingOtpSender();
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', OTP_SENDS_PER_DESTINATION: '2' }, { otpSender });
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant()).platformUuid;
  });

  it.each(['x<victim@example.com>', 'Victim <victim@example.com>', '"a b"@x.com', 'a@x.com, b@y.com', '(c)a@x.com', 'group: victim@example.com;'])(
    'refuses %j at the contact field, and sends nothing',
    async (contact) => {
      const before = sent.length;
      const res = await sendCode(stack, platformUuid, contact);
      expect(res.status).toBe(422);
      expect(await res.text()).toContain('Enter an email address, or a phone number with its country code');
      expect(sent).toHaveLength(before);
    },
  );

  it('counts jane+1@ and jane+2@ as jane@, sends to the address as typed, with its domain lower-cased and in ASCII', async () => {
    const mailbox = freshMailbox();
    expect((await sendCode(stack, platformUuid, `${mailbox}+1@Bücher.Example`)).status).toBe(303);
    expect((await sendCode(stack, platformUuid, `${mailbox}+2@xn--bcher-kva.example`)).status).toBe(303);
    const third = await sendCode(stack, platformUuid, `${mailbox}@BÜCHER.example`);
    expect(third.status).toBe(429);
    expect(await third.text()).toMatch(/Too many codes were sent to this email address/);
    expect(sent.filter((m) => m.address.startsWith(mailbox)).map((m) => m.address)).toEqual([
      `${mailbox}+1@xn--bcher-kva.example`,
      `${mailbox}+2@xn--bcher-kva.example`,
    ]);
    const key = otpDestinationKey(stack.config.keyring, `${mailbox}@xn--bcher-kva.example`);
    expect(await stack.db`select hits from rate_limit_windows where bucket = ${`otp-destination:${key}`}`).toEqual([{ hits: 2 }]);
  });

  it('reads a national number in the cart’s country and sends to it in E.164', async () => {
    const national = `06 1${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    expect((await sendCode(stack, platformUuid, national, { country: 'FR' })).status).toBe(303);
    expect(sent.at(-1)).toMatchObject({ channel: 'sms', address: `+33${national.replace(/\s/g, '').slice(1)}` });
    // The same digits mean nothing in a cart from a country whose numbers they are not.
    expect((await sendCode(stack, platformUuid, national, { country: 'US' })).status).toBe(422);
  });
});

describe('hourly SMS caps per merchant', () => {
  const { sent, otpSender } = recordingOtpSender();
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', SMS_PER_MERCHANT_PER_HOUR: '2' }, { otpSender });

  it('refuses a merchant’s third SMS of the hour whatever the number and address, still emails, and leaves other merchants alone', async () => {
    const capped = (await stack.createMerchant()).platformUuid;
    const other = (await stack.createMerchant()).platformUuid;
    for (let i = 0; i < 2; i++) expect((await sendCode(stack, capped, freshPhone())).status).toBe(303);
    const phone = freshPhone();
    const refused = await sendCode(stack, capped, phone);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toMatch(/Too many codes were sent to this number\. Try again in \d+ minutes?, or use another contact\./);
    expect(sent.filter((m) => m.address === phone)).toHaveLength(0);
    expect((await sendCode(stack, capped, `${freshMailbox()}@example.com`)).status).toBe(303);
    expect((await sendCode(stack, other, phone)).status).toBe(303);
    expect(await pageMetrics(stack)).toMatch(/checkout_otp_sends_refused_total\{limit="sms_merchant"\} 1/);
  });
});

describe('hourly SMS cap of the deployment', () => {
  const { otpSender } = recordingOtpSender();
  // The deployment's count is shared by every test file of the run: a cap of 1 is reached by the
  // second SMS of this file at the latest. No keyed share here (test/integration/otp-send-caps.test.ts
  // holds it): the whole cap is under test.
  const stack = useTestStack({ ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', SMS_PER_DEPLOYMENT_PER_HOUR: '1', OTP_KEYED_SHARE_PERCENT: '0' }, { otpSender });

  it('refuses SMS for every merchant once the deployment reached its cap, and still emails', async () => {
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await sendCode(stack, (await stack.createMerchant()).platformUuid, freshPhone())).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await sendCode(stack, (await stack.createMerchant()).platformUuid, `${freshMailbox()}@example.com`)).status).toBe(303);
    expect(await pageMetrics(stack)).toMatch(/checkout_otp_sends_refused_total\{limit="sms_deployment"\} [12]/);
  });
});
