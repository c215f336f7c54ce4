import type { Db } from '../../core/db/client.js';
import { recordDomainCheck, selectMerchantDomainTokens } from '../../core/merchants/merchant-store.js';

/**
 * Records the merchant's domains as verified, as a check that found each token would: for tests of
 * production that are not about verification (core/merchants/domain-verification.ts has its own,
 * test/integration/domain-verification.test.ts) and need a merchant that may take carts.
 */
export async function markDomainsVerified(db: Db, platformUuid: string): Promise<void> {
  for (const domain of await selectMerchantDomainTokens(db, platformUuid)) await recordDomainCheck(db, domain, { verifiedBy: 'well-known' });
}
