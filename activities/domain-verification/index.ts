import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import {
  checkDomain,
  fetchVerificationFile as realFetch,
  resolveTxt as realResolveTxt,
  type FetchVerificationFile,
  type ResolveTxt,
} from '../../core/merchants/domain-verification.js';
import { recordDomainCheck, selectMerchantDomainTokens, selectProductionDomainsToVerify, type DomainToVerify } from '../../core/merchants/merchant-store.js';

/** ApplicationFailure type of a check nothing answered (network, DNS): retried before it counts. */
export const DOMAIN_CHECK_INCONCLUSIVE = 'DomainCheckInconclusive';

export interface DomainCheckOutcome {
  domain: string;
  verified: boolean;
  verifiedBy?: 'well-known' | 'dns-txt';
  problem?: string;
}

/**
 * What the domain verification workflows (workflows/domain-verification/) run: the fetch of each
 * domain's well-known file and its TXT lookup (core/merchants/domain-verification.ts), and the result
 * recorded. Tests give their own fetch and resolver; the real ones go through the webhooks' outbound guard.
 */
export function createDomainVerificationActivities(deps: { db: Db; logger: Logger; fetchVerificationFile?: FetchVerificationFile; resolveTxt?: ResolveTxt }) {
  const { db, logger } = deps;
  const checkDeps = { fetchVerificationFile: deps.fetchVerificationFile ?? realFetch, resolveTxt: deps.resolveTxt ?? realResolveTxt };
  return {
    /** The merchant's domains with their tokens. */
    async merchantDomainsToVerify(input: { platformUuid: string }): Promise<DomainToVerify[]> {
      return selectMerchantDomainTokens(db, input.platformUuid);
    },

    /** A page of every production merchant's domains, for the daily re-check. */
    async productionDomainsToVerify(input: { after?: { platformUuid: string; domain: string }; limit: number }): Promise<DomainToVerify[]> {
      return selectProductionDomainsToVerify(db, input.after, input.limit);
    },

    /**
     * Checks one domain and records what it found. A check nothing answered (no HTTP answer and no DNS
     * answer) is thrown, retryable, until the last of `attempts`, so a blip does not unverify a domain;
     * then it is recorded like any other failure.
     */
    async verifyDomain(input: DomainToVerify & { attempts: number }): Promise<DomainCheckOutcome> {
      const { attempts, ...checked } = input;
      const result = await checkDomain(checked.domain, checked.token, checkDeps);
      if (!result.verified && !result.conclusive && Context.current().info.attempt < attempts)
        throw ApplicationFailure.retryable(result.problem, DOMAIN_CHECK_INCONCLUSIVE);
      const recorded = await recordDomainCheck(db, checked, result.verified ? { verifiedBy: result.verifiedBy } : { problem: result.problem });
      if (!result.verified)
        logger.info(
          { platformUuid: checked.platformUuid, domain: checked.domain, problem: result.problem, detail: result.detail, recorded },
          'domain not verified',
        );
      return result.verified
        ? { domain: checked.domain, verified: true, verifiedBy: result.verifiedBy }
        : { domain: checked.domain, verified: false, problem: result.problem };
    },
  };
}

export type DomainVerificationActivities = ReturnType<typeof createDomainVerificationActivities>;
