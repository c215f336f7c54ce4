import { describe, expect, it } from 'vitest';
import type { PaymentLink } from '../../core/links/payment-link-schema.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { REAL_CODE_PROVIDERS } from '../support/production-settings.js';
import { recordingOtpSender } from '../support/recording-otp-sender.js';
import { useTestStack, type TestStack } from '../support/test-stack.js';

// A fresh client address per code (TRUST_PROXY=1 reads the right-most X-Forwarded-For entry) and a fresh
// phone: only the deployment's caps can refuse, as for a botnet's many addresses.
const freshClient = () => `192.0.2.1, 198.18.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
const freshPhone = () => `+3362${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

/** Sends a code on the checkout page of `cartId`, from a fresh address. */
async function sendCode(stack: TestStack, cartId: string) {
  const visit = await visitCheckout(stack.checkoutUrl, cartId);
  return postCheckoutForm(stack.checkoutUrl, '/contact', cartId, visit, { contact: freshPhone() }, { 'x-forwarded-for': freshClient() });
}

/**
 * A payment link's sessions are marked createdWith api_key (the merchant made the link with its key),
 * but whoever opens the link is a stranger: the code budget counts their codes as a public cart's, so
 * one public link cannot spend the keyed share of the deployment's cap (core/checkout/cart-provenance.ts).
 */
describe('the keyed share of the code budget, for payment-link sessions', () => {
  const { otpSender } = recordingOtpSender();
  // All but 1% of a cap far above the run's other sends is kept for keyed sessions: the public share
  // (10 codes an hour) is reached by this file's own sends.
  const stack = useTestStack(
    { ...REAL_CODE_PROVIDERS, TRUST_PROXY: '1', SMS_PER_DEPLOYMENT_PER_HOUR: '1000', OTP_KEYED_SHARE_PERCENT: '99', RATE_LIMIT_LINK_VISITS_PER_LINK: '100' },
    // The link's url is built from CHECKOUT_BASE_URL: it must lead to the page.
    { otpSender, checkoutAtItsBaseUrl: true },
  );

  it('counts the codes of a public link’s visitors against the public share, while the merchant’s keyed carts keep theirs', async () => {
    const merchant = await stack.createMerchant();
    const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cartObject: validCartRequest(merchant.platformUuid).cartObject }),
    });
    const link = (await res.json()) as PaymentLink;
    const linkSession = async () => {
      const visit = await fetch(link.url, { redirect: 'manual', headers: { 'x-forwarded-for': freshClient() } });
      expect(visit.status).toBe(303);
      return new URL(visit.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;
    };

    const statuses: number[] = [];
    // Strangers through the one link, a fresh address each, until refused (11 is past the public share).
    for (let i = 0; i < 11 && statuses.at(-1) !== 429; i++) statuses.push((await sendCode(stack, await linkSession())).status);
    expect(statuses.at(-1)).toBe(429);
    const order = await (
      await fetch(`${stack.apiUrl}/v2/merchant/orders/${await linkSession()}`, { headers: { authorization: `Bearer ${merchant.apiKey}` } })
    ).json();
    // The order still says how the link was made.
    expect(order).toMatchObject({ createdWith: 'api_key', paymentLinkId: link.id });

    // The merchant's own carts, made with its API key, still get their codes.
    const keyed = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` });
    const { cartId } = ((await keyed.json()) as { data: { cartId: string } }).data;
    expect((await sendCode(stack, cartId)).status).toBe(303);
  });
});
