/**
 * Who made a cart: `api_key` when the create-cart request carried the merchant's valid API key,
 * `public` when it carried no Authorization header (any other key is refused). Create-cart is public (a platformUuid is all it needs), so a `public` cart may
 * be a stranger's: merchants fulfil only carts they created themselves (README, "Security model").
 */
export const CART_PROVENANCES = ['api_key', 'public'] as const;
export type CartProvenance = (typeof CART_PROVENANCES)[number];

/**
 * Whose share of the message budgets a session's codes and reminder spend (core/checkout/otp/send-budget.ts):
 * its own provenance, but a stranger's for every session minted from a payment link, a retry or a
 * recovery. Their `createdWith` is the merchant's (it made the link, asked for the retry, or created
 * the cart recovered), yet whoever opens them is anyone holding a URL: counted as keyed, one public
 * link would let anybody spend the share kept for the merchants' own carts.
 */
export function budgetProvenance(cart: {
  createdWith: CartProvenance;
  paymentLinkId: string | null;
  retryOf: string | null;
  recoveredFrom: string | null;
}): CartProvenance {
  const minted = cart.paymentLinkId !== null || cart.retryOf !== null || cart.recoveredFrom !== null;
  return minted ? 'public' : cart.createdWith;
}
