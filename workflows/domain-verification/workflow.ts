import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { DomainVerificationActivities } from '../../activities/domain-verification/index.js';
import type { DomainVerificationResult, RecheckDomainsInput } from './messages.js';

const { merchantDomainsToVerify, productionDomainsToVerify } = proxyActivities<DomainVerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

/** Asked for by a person waiting on the answer: one try, the fetch's own 10 s bound and some. */
const ONE_TRY = 1;
const { verifyDomain: verifyNow } = proxyActivities<DomainVerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: ONE_TRY },
});

/** The daily re-check: a check nothing answered is tried again over about 15 minutes before it unverifies. */
const RECHECK_ATTEMPTS = 4;
const { verifyDomain: verifyLater } = proxyActivities<DomainVerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 minute', backoffCoefficient: 3, maximumAttempts: RECHECK_ATTEMPTS },
});

const PAGE = 100;
const AT_ONCE = 10;

async function inBatches<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE) results.push(...(await Promise.all(items.slice(i, i + AT_ONCE).map(run))));
  return results;
}

/**
 * Checks one merchant's domains now (core/merchants/domain-verification.ts): started when its domains
 * are registered or changed, and when someone asks (operator API, CLI, dashboard "Check now").
 */
export async function verifyMerchantDomains(input: { platformUuid: string }): Promise<DomainVerificationResult[]> {
  const domains = await merchantDomainsToVerify({ platformUuid: input.platformUuid });
  return inBatches(domains, (d) => verifyNow({ ...d, attempts: ONE_TRY }));
}

/**
 * Run daily by a Temporal Schedule: every production merchant's domains checked again, so a domain
 * whose token was taken down (or that changed hands) stops taking carts. A domain whose check fails
 * for good is recorded unverified; the workflow itself does not fail for it.
 */
export async function recheckDomainVerifications(input: RecheckDomainsInput = {}): Promise<{ checked: number; unverified: number }> {
  const page = await productionDomainsToVerify({ ...(input.after ? { after: input.after } : {}), limit: PAGE });
  const results = await inBatches(page, (d) =>
    verifyLater({ ...d, attempts: RECHECK_ATTEMPTS }).catch((): DomainVerificationResult => ({ domain: d.domain, verified: false })),
  );
  const last = page.at(-1);
  if (page.length === PAGE && last) await continueAsNew<typeof recheckDomainVerifications>({ after: { platformUuid: last.platformUuid, domain: last.domain } });
  return { checked: results.length, unverified: results.filter((r) => !r.verified).length };
}
