import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTP_SEND_FAILED } from '../../core/checkout/session.js';
import { cartSessionDriver, refusalOf } from '../support/cart-session-driver.js';
import { startSmsProvider, startSmtpCatcher } from '../support/otp-providers.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const AUTH_TOKEN = 'twilio-test-auth-token-0123';
const FROM = '+15005550006';
const UNREACHABLE = '+33699999999';

// Started before the stack, whose configuration holds their addresses.
const smtp = await startSmtpCatcher();
const sms = await startSmsProvider({ [UNREACHABLE]: 400 });

describe('one-time codes really delivered: email over SMTP, SMS through the Twilio Messages API', () => {
  const stack = useTestStack({
    SMTP_URL: smtp.url,
    OTP_EMAIL_FROM: 'Checkout <codes@pay.example>',
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_FROM: FROM,
    TWILIO_API_URL: sms.url,
  });
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });
  afterAll(async () => {
    await smtp.close();
    await sms.close();
  });

  it('emails the code in the store’s name, in plain text and HTML, with how long it lasts and no link or image; the code verifies', async () => {
    const session = await driver.createSession();
    await driver.sendCode(session, 'Jane.Doe@Example.com');
    const mail = await waitFor(() => smtp.messages.find((m) => m.to && JSON.stringify(m.to).includes('jane.doe@example.com')), { what: 'the email' });
    expect(mail.from?.value).toEqual([{ name: 'Checkout', address: 'codes@pay.example' }]);
    const code = /^(\d{6}) is your Test Store checkout code$/.exec(mail.subject ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.text).toContain(`Your code to pay Test Store: ${code}`);
    expect(mail.text).toContain('It works for 5 minutes.');
    expect(mail.html).toContain(code);
    expect(String(mail.html)).not.toMatch(/<a\s|<img\s|https?:\/\//i);
    expect(await driver.verify(session, code!)).toMatchObject({ step: 'card' });
    // Nothing went to the sandbox outbox: the real sender did the job.
    expect(await stack.db`select 1 from otp_outbox where cart_id = ${session.cartId}`).toHaveLength(0);
  });

  it('texts the code through the provider with the account’s credentials; the code verifies', async () => {
    const session = await driver.createSession();
    await driver.sendCode(session, '+33 6 12 34 56 78');
    const request = await waitFor(() => sms.requests.find((r) => r.form.To === '+33612345678'), { what: 'the SMS' });
    expect(request.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(request.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(request.form.From).toBe(FROM);
    const code = /^(\d{6}) is your Test Store checkout code\. It works for 5 minutes\. Do not share it\.$/.exec(request.form.Body ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(await driver.verify(session, code!)).toMatchObject({ step: 'card' });
  });

  it('reports a provider refusal to the page as a code that could not be sent, after the activity’s retries', async () => {
    const session = await driver.createSession();
    const before = sms.requests.filter((r) => r.form.To === UNREACHABLE).length;
    expect(await refusalOf(driver.sendCode(session, UNREACHABLE))).toBe(OTP_SEND_FAILED);
    expect(sms.requests.filter((r) => r.form.To === UNREACHABLE).length - before).toBe(3);
    expect(await driver.state(session)).toMatchObject({ step: 'contact' });
  });
});
