/**
 * Who made a cart: `api_key` when the create-cart request carried the merchant's valid API key,
 * `public` when it carried no Authorization header (any other key is refused). Create-cart is public (a platformUuid is all it needs), so a `public` cart may
 * be a stranger's: merchants fulfil only carts they created themselves (README, "Security model").
 */
export const CART_PROVENANCES = ['api_key', 'public'] as const;
export type CartProvenance = (typeof CART_PROVENANCES)[number];
