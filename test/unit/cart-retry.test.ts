import { describe, expect, it } from 'vitest';
import { retryRefusal, type RetrySource } from '../../core/orders/cart-retry.js';
import { CART_STATUSES } from '../../core/checkout/session.js';
import { validCartRequest } from '../support/fixtures.js';

const source = (edit: Partial<RetrySource> = {}): RetrySource => {
  const { store, cart } = validCartRequest('8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80').cartObject;
  return {
    cartId: 'failed-cart',
    status: 'failed',
    store,
    cart,
    createdWith: 'api_key',
    paymentLinkId: null,
    lineage: { retryOf: 'failed-cart', retryRoot: 'first-cart', afterRecovery: false },
    retriedBy: null,
    retriesMade: 0,
    ...edit,
  };
};

describe('which sessions may be retried (docs/decisions/cart-retries.md)', () => {
  it('retries a failed session only', () => {
    expect(retryRefusal(source())).toBeUndefined();
    for (const status of CART_STATUSES.filter((s) => s !== 'failed')) expect(retryRefusal(source({ status }))).toEqual({ code: 'not_retryable', status });
  });

  it('retries a session once, naming its retry', () => {
    expect(retryRefusal(source({ retriedBy: 'next-cart' }))).toEqual({ code: 'already_retried', retriedBy: 'next-cart' });
  });

  it('caps the chain at the cart’s retries, 3 when absent', () => {
    expect(retryRefusal(source({ retriesMade: 2 }))).toBeUndefined();
    expect(retryRefusal(source({ retriesMade: 3 }))).toEqual({ code: 'limit_reached', allowed: 3, root: 'first-cart' });
    const once = source({ retriesMade: 1 });
    once.cart.retries = 1;
    expect(retryRefusal(once)).toEqual({ code: 'limit_reached', allowed: 1, root: 'first-cart' });
    const never = source();
    never.cart.retries = 0;
    expect(retryRefusal(never)).toMatchObject({ code: 'limit_reached', allowed: 0 });
  });
});
