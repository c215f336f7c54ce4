import { randomToken } from '../crypto.js';

/** 144 bits from the CSPRNG: the cartId is a bearer token for the checkout page. */
export function newCartId(): string {
  return randomToken(18);
}

export const CART_ID_PATTERN = /^[A-Za-z0-9_-]{24}$/;
