import { beforeAll, describe, expect, it } from 'vitest';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack } from '../support/test-stack.js';
import { readLatestOutboxCode } from '../../core/checkout/otp/outbox.js';

// With TRUST_PROXY=1 the client is the right-most X-Forwarded-For entry (what our proxy appended).
// Fresh per test from a documentation range, so no other test's traffic counts against it.
const freshClient = () => `192.0.2.${Math.floor(Math.random() * 254) + 1}, 198.18.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
const clientOf = (forwarded: string) => forwarded.split(', ')[1]!;
// A phone number no other test sends to.
const freshPhone = () => `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

function expect429(res: Response) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3600);
}

describe('abuse limits of the checkout page', () => {
  const { sent, otpSender } = recordingOtpSender();
  const stack = useTestStack(
    {
      TRUST_PROXY: '1',
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: '8',
      OTP_SENDS_PER_DESTINATION: '3',
      OTP_SENDS_PER_CLIENT: '5',
      ...REAL_CODE_PROVIDERS,
    },
    { otpSender },
  );
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Limits Store' })).platformUuid;
  });

  const sentTo = (address: string) => sent.filter((m) => m.address === address).length;
  const hitsOf = async (bucket: string) => (await stack.db<{ hits: number }[]>`select hits from rate_limit_windows where bucket = ${bucket}`)[0]?.hits ?? 0;

  /** A new cart opened in a browser: what the pump does each time. */
  async function newCheckout() {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    return { cartId, visit: await visitCheckout(stack.checkoutUrl, cartId) };
  }

  async function sendCode(forwarded: string, contact: string, htmx = false) {
    const { cartId, visit } = await newCheckout();
    const res = await postCheckoutForm(
      stack.checkoutUrl,
      '/contact',
      cartId,
      visit,
      { contact },
      { 'x-forwarded-for': forwarded, ...(htmx ? { 'hx-request': 'true' } : {}) },
    );
    return { cartId, visit, res };
  }

  it('stops an OTP pump at the destination’s limit across carts, keeps the number out of the database, and lets another contact through', async () => {
    const client = freshClient();
    const phone = freshPhone();
    for (let i = 0; i < 3; i++) expect((await sendCode(client, phone)).res.status).toBe(303);
    expect(sentTo(phone)).toBe(3);

    const refused = await sendCode(client, phone.replace(/^\+/, '00'), true); // the same number, written otherwise
    expect429(refused.res);
    const panel = await refused.res.text();
    expect(panel).toMatch(/Too many codes were sent to this number\. Try again in \d+ minutes?, or use another contact\./);
    expect(panel).toContain('id="step"');
    expect(sentTo(phone)).toBe(3);

    // Another destination from the same address still works; the refused send was not counted.
    const other = freshPhone();
    expect(
      (await postCheckoutForm(stack.checkoutUrl, '/contact', refused.cartId, refused.visit, { contact: other }, { 'x-forwarded-for': client })).status,
    ).toBe(303);
    expect(sentTo(other)).toBe(1);
    expect(await hitsOf(`otp-client:${clientOf(client)}`)).toBe(4);

    // The destination is counted under its keyed hash only.
    expect(await hitsOf(`otp-destination:${otpDestinationKey(stack.config.keyring, phone)}`)).toBe(3);
    const digits = phone.slice(-7);
    expect(await stack.db`select bucket from rate_limit_windows where bucket like ${`%${digits}%`}`).toEqual([]);

    const metrics = await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/checkout_otp_sends_refused_total\{limit="destination"\} [1-9]/);
    expect((await fetch(`${stack.checkoutUrl}/metrics`)).status).toBe(401);
  });

  it('refuses a resend once its destination reached the limit', async () => {
    const client = freshClient();
    const email = `pump-${Math.random().toString(36).slice(2)}@example.com`;
    const first = await sendCode(client, email);
    expect(first.res.status).toBe(303);
    for (let i = 0; i < 2; i++) expect((await sendCode(client, email)).res.status).toBe(303);

    const page = await visitCheckout(stack.checkoutUrl, first.cartId, first.visit.cookie);
    const resend = await postCheckoutForm(stack.checkoutUrl, '/resend-code', first.cartId, page, {}, { 'x-forwarded-for': client });
    expect429(resend);
    expect(await resend.text()).toMatch(/Too many codes were sent to this email address\. Try again in \d+ minutes?, or use another contact\./);
    expect(sentTo(email)).toBe(3);
  });

  it('does not count a send the session refused (a resend asked too soon)', async () => {
    const client = freshClient();
    const phone = freshPhone();
    const { cartId, visit, res } = await sendCode(client, phone);
    expect(res.status).toBe(303);
    const page = await visitCheckout(stack.checkoutUrl, cartId, visit.cookie);
    const tooSoon = await postCheckoutForm(stack.checkoutUrl, '/resend-code', cartId, page, {}, { 'x-forwarded-for': client });
    expect(tooSoon.status).toBe(422);
    expect(await tooSoon.text()).toContain('before asking for a new code');
    expect(sentTo(phone)).toBe(1);
    expect(await hitsOf(`otp-destination:${otpDestinationKey(stack.config.keyring, phone)}`)).toBe(1);
    expect(await hitsOf(`otp-client:${clientOf(client)}`)).toBe(1);
  });

  it('limits codes per client address across destinations', async () => {
    const client = freshClient();
    const phones = Array.from({ length: 6 }, freshPhone);
    for (const phone of phones.slice(0, 5)) expect((await sendCode(client, phone)).res.status).toBe(303);
    const refused = await sendCode(client, phones[5]!);
    expect429(refused.res);
    expect(await refused.res.text()).toMatch(/Too many codes were requested from your connection\. Try again in \d+ minutes?\./);
    expect(sentTo(phones[5]!)).toBe(0);
    // Another address is not affected.
    expect((await sendCode(freshClient(), phones[5]!)).res.status).toBe(303);
  });

  it('limits the page’s form posts per client address, before reading them, with a 429 page or panel', async () => {
    const client = freshClient();
    const { cartId, visit } = await newCheckout();
    const cancel = (forwarded: string, headers: Record<string, string> = {}) =>
      postCheckoutForm(stack.checkoutUrl, '/cancel', cartId, { ...visit, csrf: 'wrong' }, {}, { 'x-forwarded-for': forwarded, ...headers });
    for (let i = 0; i < 8; i++) expect((await cancel(client)).status).toBe(403);

    const page = await cancel(client);
    expect429(page);
    expect(await page.text()).toMatch(/Too many requests from your connection\. Please wait \d+ minutes? and try again\./);
    const panel = await cancel(client, { 'hx-request': 'true' });
    expect429(panel);
    expect(await panel.text()).toMatch(/^<section id="step" class="panel step"><p class="alert" role="alert">Too many requests/);

    // Others are not affected: their post is read and judged (here, refused for its CSRF token).
    expect((await cancel(freshClient())).status).toBe(403);
  });
});

describe('the code limits in sandbox with the outbox (no message leaves)', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', RATE_LIMIT_WINDOW_SECONDS: '3600', OTP_SENDS_PER_DESTINATION: '2', OTP_SENDS_PER_CLIENT: '3' });

  it('never refuses a developer a code: the same email from the same machine, past both limits', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Developer Store' });
    const client = freshClient();
    const email = `dev-${Math.random().toString(36).slice(2)}@example.com`;
    for (let i = 0; i < 5; i++) {
      const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
      const visit = await visitCheckout(stack.checkoutUrl, cartId);
      const res = await postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact: email }, { 'x-forwarded-for': client });
      expect(res.status, `code ${i + 1}`).toBe(303);
      expect(await readLatestOutboxCode(stack.db, stack.config.keyring, cartId)).toBeDefined();
    }
    // Nothing was counted for the outbox's sends.
    expect(await stack.db`select bucket from rate_limit_windows where bucket = ${`otp-client:${clientOf(client)}`}`).toEqual([]);
    expect(await stack.db`select bucket from rate_limit_windows where bucket = ${`otp-destination:${otpDestinationKey(stack.config.keyring, email)}`}`).toEqual(
      [],
    );
  });
});
