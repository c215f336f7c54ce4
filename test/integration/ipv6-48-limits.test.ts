import { describe, expect, it } from 'vitest';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';

// Each limiter that counts an IPv6 client per /64 also counts its /48 together, under a ceiling of
// RATE_LIMIT_IPV6_48_CLIENTS clients' allowance: one site's 65 536 /64s are not 65 536 clients.
// With TRUST_PROXY=1 the client is the right-most X-Forwarded-For entry. A fresh /48 per test.
const site = () => `2001:db8:${(Math.floor(Math.random() * 0xfff0) + 1).toString(16)}`;
const in64 = (prefix: string, subnet: number) => `${prefix}:${subnet.toString(16)}::1`;
const freshPhone = () => `+3361${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

async function newCheckout(stack: TestStack, platformUuid: string) {
  const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
  return { cartId, visit: await visitCheckout(stack.checkoutUrl, cartId) };
}

describe('one-time codes per IPv6 /48', () => {
  const { otpSender } = recordingOtpSender();
  const stack = useTestStack(
    { ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', RATE_LIMIT_WINDOW_SECONDS: '3600', OTP_SENDS_PER_CLIENT: '2', RATE_LIMIT_IPV6_48_CLIENTS: '2' },
    { otpSender },
  );

  it('gives all the /64s of one /48 two clients’ codes, and another /48 its own', async () => {
    const { platformUuid } = await stack.createMerchant();
    const send = async (address: string) => {
      const { cartId, visit } = await newCheckout(stack, platformUuid);
      return postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact: freshPhone() }, { 'x-forwarded-for': address });
    };
    const mine = site();
    // A /64 alone runs out after its own 2; other /64s of the /48 share 2 × 2 = 4.
    expect((await send(in64(mine, 1))).status).toBe(303);
    expect((await send(in64(mine, 1))).status).toBe(303);
    expect((await send(in64(mine, 1))).status).toBe(429);
    for (let subnet = 2; subnet <= 3; subnet++) expect((await send(in64(mine, subnet))).status).toBe(303);
    const refused = await send(in64(mine, 4));
    expect(refused.status).toBe(429);
    expect(await refused.text()).toMatch(/Too many codes were requested from your connection/);
    expect((await send(in64(site(), 1))).status).toBe(303);
  });
});

describe('checkout form posts per IPv6 /48', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: '2', RATE_LIMIT_IPV6_48_CLIENTS: '2' });

  it('gives all the /64s of one /48 two clients’ posts, and another /48 its own', async () => {
    const { platformUuid } = await stack.createMerchant();
    const { cartId, visit } = await newCheckout(stack, platformUuid);
    // An invalid contact: a post the page reads and answers 422, counting one page action.
    const post = (address: string) =>
      postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact: 'not a contact' }, { 'x-forwarded-for': address });
    const mine = site();
    for (const subnet of [1, 1, 2, 2]) expect((await post(in64(mine, subnet))).status).toBe(422);
    expect((await post(in64(mine, 1))).status).toBe(429);
    expect((await post(in64(mine, 3))).status).toBe(429);
    expect((await post(in64(site(), 1))).status).toBe(422);
  });
});

describe('dashboard sign-ins per IPv6 /48', () => {
  const stack = useTestStack({
    TRUST_PROXY: '1',
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: '2',
    RATE_LIMIT_IPV6_48_CLIENTS: '2',
  });

  it('gives all the /64s of one /48 two clients’ attempts, and another /48 its own', async () => {
    const merchant = await stack.createMerchant();
    const mine = site();
    const attempt = (subnet: number, prefix = mine) => dashboardClient(stack.checkoutUrl, in64(prefix, subnet)).signIn('sk_sandbox_wrong');
    for (const subnet of [1, 1, 2, 2]) expect((await attempt(subnet)).status).toBe(401);
    expect((await attempt(1)).status).toBe(429);
    expect((await attempt(3)).status).toBe(429);
    // The right key is checked before the limiter counts (issue 51: wrong attempts must not lock the
    // owner out), so it signs in from a fresh /64 of the spent /48 as from another /48.
    expect((await dashboardClient(stack.checkoutUrl, in64(mine, 4)).signIn(merchant.apiKey)).status).toBe(303);
    expect((await dashboardClient(stack.checkoutUrl, in64(site(), 1)).signIn(merchant.apiKey)).status).toBe(303);
  });
});

describe('wrong operator tokens per IPv6 /48', () => {
  const stack = useTestStack({
    TRUST_PROXY: '1',
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: '2',
    RATE_LIMIT_IPV6_48_CLIENTS: '2',
  });
  const call = (address: string, token: string) =>
    fetch(`${stack.apiUrl}/operator/merchants`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address } });

  it('gives all the /64s of one /48 two clients’ wrong tokens, and another /48 its own', async () => {
    const mine = site();
    for (const subnet of [1, 1, 2, 2]) expect((await call(in64(mine, subnet), 'wrong-guess-0123456789abcdef')).status).toBe(401);
    expect((await call(in64(mine, 1), 'wrong-guess-0123456789abcdef')).status).toBe(429);
    // A fresh /64 of the spent /48 is refused before its token is compared, even the right one.
    expect((await call(in64(mine, 3), stack.config.operatorToken!)).status).toBe(429);
    expect((await call(in64(site(), 1), stack.config.operatorToken!)).status).toBe(200);
  });
});
