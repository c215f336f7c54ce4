import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { merchantApi, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

const stack = useTestStack();

/** One item of `price` in `currency`. */
const cartIn = (platformUuid: string, currency: string, price: number) => {
  const request = validCartRequest(platformUuid);
  request.cartObject.cart.currency = currency;
  request.cartObject.cart.items = [{ ...request.cartObject.cart.items[0]!, price, quantity: 1 }];
  return request;
};

describe('Amounts the processor cannot charge exactly are refused at the API, naming the field', () => {
  let merchant: CreatedMerchant;
  beforeAll(async () => {
    merchant = await stack.createMerchant();
  });

  /** A cart of one item of `price` in `currency`, paid with the approved sandbox card: `paid`, or `authorized` for manual capture. */
  async function paidCart(currency: string, price: number, captureMethod?: 'manual'): Promise<string> {
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const item = { ...validCartRequest(merchant.platformUuid).cartObject.cart.items[0]!, price, quantity: 1 };
    const session = await driver.verifiedSession({ currency, items: [item], ...(captureMethod ? { captureMethod } : {}) });
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe(captureMethod ? 'authorized' : 'paid');
    return session.cartId;
  }

  it.each([
    ['KWD', 1005, 'AMOUNT_NOT_REPRESENTABLE', 'cartObject.cart.items', /multiples of 10\. Use 1000 or 1010/],
    ['MGA', 100050, 'AMOUNT_NOT_REPRESENTABLE', 'cartObject.cart.items', /multiples of 100\. Use 100000 or 100100/],
    ['KPW', 1000, 'CURRENCY_NOT_SUPPORTED', 'cartObject.cart.currency', /cannot charge KPW/],
  ])('create-cart refuses %s %i with 422 %s naming %s, and creates nothing', async (currency, price, code, path, message) => {
    const res = await postCart(stack.apiUrl, cartIn(merchant.platformUuid, currency, price), { 'idempotency-key': `amounts-${currency}-${price}` });
    const body = (await res.json()) as ErrorBody;
    expect([res.status, body.code, body.errors.map((e) => e.path)]).toEqual([422, code, [path]]);
    expect(body.message).toMatch(message);
    const [{ count }] = await stack.db<[{ count: number }]>`
      select count(*)::int as count from carts where platform_uuid = ${merchant.platformUuid} and currency = ${currency}`;
    expect(count).toBe(0);
  });

  it('create-cart accepts ISK and KWD totals the processor can charge, and the sandbox charges them in ISO 4217 minor units', async () => {
    for (const [currency, price] of [
      ['ISK', 5000],
      ['KWD', 12340],
    ] as const) {
      const cartId = await paidCart(currency, price);
      const [charged] = await stack.db<Array<{ amount: string; currency: string }>>`
        select amount, currency from sandbox_charges where idempotency_key = ${cartId}`;
      expect([Number(charged!.amount), charged!.currency]).toEqual([price, currency]);
    }
  });

  it('a partial refund of an amount the processor cannot charge is refused with 422 AMOUNT_NOT_REPRESENTABLE naming amount; a representable one goes through', async () => {
    const cartId = await paidCart('KWD', 12340);
    const api = merchantApi(stack, merchant.apiKey);
    // The refund waits for order_created to be recorded; until then it says so (ORDER_NOT_PAID), so ask until it is.
    const refused = await waitFor(async () => {
      const res = await api.refund(cartId, { amount: 1005 });
      const body = (await res.json()) as ErrorBody;
      return body.code === 'ORDER_NOT_PAID' ? undefined : { status: res.status, body };
    });
    expect([refused.status, refused.body.code, refused.body.errors.map((e) => e.path)]).toEqual([422, 'AMOUNT_NOT_REPRESENTABLE', ['amount']]);
    expect(refused.body.message).toMatch(/Use 1000 or 1010/);
    const accepted = await api.refund(cartId, { amount: 1000 });
    expect(accepted.status).toBeLessThan(300);
  });

  it('a partial capture of an amount the processor cannot charge is refused with 422 AMOUNT_NOT_REPRESENTABLE naming amount, and the hold stays', async () => {
    const cartId = await paidCart('KWD', 12340, 'manual');
    const api = merchantApi(stack, merchant.apiKey);
    const refused = await api.capture(cartId, { amount: 1005 });
    const body = (await refused.json()) as ErrorBody;
    expect([refused.status, body.code, body.errors.map((e) => e.path)]).toEqual([422, 'AMOUNT_NOT_REPRESENTABLE', ['amount']]);
    expect(body.message).toMatch(/Use 1000 or 1010/);
    const captured = await api.capture(cartId, { amount: 1000 });
    expect(captured.status).toBe(200);
    const [charged] = await stack.db<Array<{ captured_amount: string }>>`select captured_amount from sandbox_charges where idempotency_key = ${cartId}`;
    expect(Number(charged!.captured_amount)).toBe(1000);
  });
});
