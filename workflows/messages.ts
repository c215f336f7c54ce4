import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';

/**
 * The contract between the cart-session workflow and everything that talks to it: the API starts it,
 * the hosted page queries and updates it, operators search it. Workflow-safe imports only.
 */

export const CART_SESSION_WORKFLOW = 'cartSession';

export type CartStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'cancelled' | 'abandoned' | 'partially_refunded' | 'refunded';

export const TERMINAL_STATUSES: ReadonlySet<CartStatus> = new Set(['paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded']);

export interface CartSessionInput {
  cartId: string;
  platformUuid: string;
  storeName: string;
  amount: number;
  currency: string;
  /** ISO 8601; when the session stops accepting a customer. */
  expiresOn: string;
  /** From server config, never from the request: 45 minutes except in tests. */
  lifetimeMs: number;
}

export interface CartSessionState {
  cartId: string;
  status: CartStatus;
  expiresOn: string;
}

export const stateQuery = defineQuery<CartSessionState>('state');

/** Search attributes registered on the Temporal server (see scripts/temporal-server.ts). */
export const searchAttributes = {
  merchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  cartStatus: defineSearchAttributeKey('CartStatus', SearchAttributeType.KEYWORD),
  cartTotal: defineSearchAttributeKey('CartTotal', SearchAttributeType.INT),
  currency: defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD),
} as const;

/** `--search-attribute` values for `temporal server start-dev`, and the operator's reference. */
export const SEARCH_ATTRIBUTE_DEFINITIONS = ['MerchantId=Keyword', 'CartStatus=Keyword', 'CartTotal=Int', 'Currency=Keyword'] as const;
