import type { Environment } from '../config.js';
import type { Sql } from '../db/client.js';
import type { Limit } from '../rate-limits.js';

/** What admit_cart_request is asked: who asks, for which merchant, under which limits. */
export interface CartAdmission {
  clientLimits: Limit[];
  platformUuid: string;
  environment: Environment;
  /** The SHA-256 of the presented bearer token; null without an Authorization header, a public request. */
  presentedKeyHash: Buffer | null;
  keyedLimits: Limit[];
  publicLimits: Limit[];
}

export interface CartAdmissionAnswer {
  admission: 'rate_limited' | 'unknown_platform' | 'key_scope' | 'key_required' | 'key_invalid' | 'admitted';
  refusedLimit: number | null;
  retryAfter: number | null;
  openedWindow: boolean;
  merchant: string | null;
  registeredDomains: string[] | null;
  verifiedDomains: string[] | null;
  withKey: boolean;
}

/**
 * A create-cart's admission in one round trip: the SQL function admit_cart_request (migrations 035,
 * 039, 044 and 062) counts the client's and the merchant's rate limits and finds the merchant and
 * whether the request carried its key. It writes no cart row: once admitted, the ledger's insertCart
 * does, in a statement of its own (./cart-ledger.ts; migration 062 says why).
 */
export async function admitCart(sql: Sql, admission: CartAdmission): Promise<CartAdmissionAnswer> {
  const limits = (list: Limit[]) => sql.json(list.map(({ bucket, max, windowSeconds }) => ({ bucket, max, windowSeconds })));
  // The last argument, `ledger_row`, is ignored since migration 062, which keeps it for 1.2's instances during a deploy.
  const [answer] = await sql<CartAdmissionAnswer[]>`
    select admission, refused_limit as "refusedLimit", retry_after as "retryAfter", opened_window as "openedWindow", merchant,
      registered_domains as "registeredDomains", verified_domains as "verifiedDomains", with_key as "withKey"
    from admit_cart_request(${limits(admission.clientLimits)}, ${admission.platformUuid}, ${admission.environment},
      ${admission.presentedKeyHash}, ${limits(admission.keyedLimits)}, ${limits(admission.publicLimits)}, null)`;
  return answer!;
}
