import { describe, expect, it } from 'vitest';
import { CART_STATUSES, type CartStatus } from '../../core/checkout/session.js';
import { merchantOrigins, merchantReturnUrl, SUCCESS_STATUSES } from '../../web/checkout/merchant-redirect.js';
import { validCartRequest } from '../support/fixtures.js';

const CART_ID = 'q3Vh0Xc2b1TzM9r8L5kA7wYe';

/** A session whose cart returns to `successUrl` and `failureUrl`. */
function sessionWith(successUrl = 'https://store.example/success', failureUrl = 'https://store.example/failure') {
  const { cart } = validCartRequest('00000000-0000-4000-8000-000000000000').cartObject;
  return { cartId: CART_ID, cart: { ...cart, merchantUrls: { successUrl, failureUrl } } };
}

describe('where a finished session sends the customer', () => {
  it('sends a paid session to successUrl with its cartId', () => {
    expect(merchantReturnUrl(sessionWith(), 'paid')).toBe(`https://store.example/success?cartId=${CART_ID}`);
  });

  // A manual-capture cart ends authorized, the merchant capturing later. Only paid used to go to
  // successUrl: an authorized customer got no URL, was sent to the used checkout link and saw its 410.
  it('sends an authorized (manual-capture) session to successUrl, like a paid one', () => {
    expect(SUCCESS_STATUSES.has('authorized')).toBe(true);
    expect(merchantReturnUrl(sessionWith(), 'authorized')).toBe(`https://store.example/success?cartId=${CART_ID}`);
  });

  it('sends a failed or cancelled session to failureUrl with its cartId', () => {
    expect(merchantReturnUrl(sessionWith(), 'failed')).toBe(`https://store.example/failure?cartId=${CART_ID}`);
    expect(merchantReturnUrl(sessionWith(), 'cancelled')).toBe(`https://store.example/failure?cartId=${CART_ID}`);
  });

  it('sends nowhere while there is no outcome to report (pending, processing) or none the customer waits for (abandoned)', () => {
    for (const status of ['pending', 'processing', 'abandoned'] as const) expect(merchantReturnUrl(sessionWith(), status), status).toBeUndefined();
  });

  it('has a place, or deliberately none, for every status a session can have', () => {
    const where = (status: CartStatus) => {
      const url = merchantReturnUrl(sessionWith(), status);
      return url === undefined ? 'none' : new URL(url).pathname;
    };
    expect(Object.fromEntries(CART_STATUSES.map((status) => [status, where(status)]))).toEqual({
      pending: 'none',
      processing: 'none',
      authorized: '/success',
      paid: '/success',
      failed: '/failure',
      cancelled: '/failure',
      abandoned: 'none',
      partially_refunded: 'none',
      refunded: 'none',
    });
  });

  it('keeps the merchant’s own query and fragment, and puts our cartId in place of one the URL already had', () => {
    const session = sessionWith('https://store.example/thanks?order=42&cartId=forged#receipt', 'https://store.example/oops?lang=de');
    const success = new URL(merchantReturnUrl(session, 'paid')!);
    expect(success.searchParams.get('order')).toBe('42');
    expect(success.searchParams.getAll('cartId')).toEqual([CART_ID]);
    expect(success.hash).toBe('#receipt');
    expect(merchantReturnUrl(session, 'failed')).toBe(`https://store.example/oops?lang=de&cartId=${CART_ID}`);
  });
});

describe('the origins the page’s forms may end up at', () => {
  it('is the one origin of both return URLs when they share it', () => {
    expect(merchantOrigins(sessionWith())).toEqual(['https://store.example']);
  });

  it('is each origin once, a port or scheme apart counting as another', () => {
    expect(merchantOrigins(sessionWith('https://store.example/ok', 'https://store.example:8443/ko'))).toEqual([
      'https://store.example',
      'https://store.example:8443',
    ]);
    expect(merchantOrigins(sessionWith('http://localhost:3000/ok', 'https://help.store.example/ko'))).toEqual([
      'http://localhost:3000',
      'https://help.store.example',
    ]);
  });
});
