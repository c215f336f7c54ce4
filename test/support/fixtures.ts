import { expect } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';

/** A small valid create-cart body: 2 × 19.99 EUR + 1 × 5.00 EUR = 44.98 EUR. */
export function validCartRequest(platformUuid: string): CreateCartRequest {
  return {
    cartObject: {
      store: { platformUuid, name: 'Test Store', url: 'https://store.example', logo: 'https://store.example/logo.png' },
      cart: {
        currency: 'EUR',
        // An English-speaking euro country: a request without a language we speak gets the cart
        // country's (web/i18n), and the suite reads English.
        country: 'IE',
        items: [
          {
            title: 'T-shirt',
            description: 'Organic cotton',
            price: 1999,
            quantity: 2,
            url: 'https://store.example/t-shirt',
            image: 'https://store.example/t-shirt.png',
            zeroPay: false,
            variantOptions: ['Size : M', 'Color : Blue'],
          },
          {
            title: 'Socks',
            description: 'Wool',
            price: 500,
            quantity: 1,
            url: 'https://store.example/socks',
            image: 'https://store.example/socks.png',
            zeroPay: false,
          },
        ],
        extra: { orderRef: 'order-42' },
        merchantUrls: { successUrl: 'https://store.example/success', failureUrl: 'https://store.example/failure' },
      },
    },
  };
}

export async function postCart(apiUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${apiUrl}/v2/public/api/cart/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Creates a cart through the API and returns its cartId; anything but 200 fails the test there. */
export async function createCartId(apiUrl: string, body: CreateCartRequest): Promise<string> {
  const res = await postCart(apiUrl, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as { data: { cartId: string } }).data.cartId;
}
