/** The contract of the domain verification workflows and their schedule. Workflow-safe imports only. */

/** One schedule per task queue, so test stacks on their own queues do not share one. */
export function domainRecheckScheduleId(taskQueue: string): string {
  return `domain-verification-${taskQueue}`;
}

/** Every production domain is checked again this often. */
export const DOMAIN_RECHECK_EVERY_MS = 24 * 60 * 60 * 1000;

export function merchantDomainVerificationWorkflowId(platformUuid: string): string {
  return `domain-verification-${platformUuid}`;
}

export interface RecheckDomainsInput {
  /** Where the previous run (continued as new) stopped. */
  after?: { platformUuid: string; domain: string };
}

export interface DomainVerificationResult {
  domain: string;
  verified: boolean;
  verifiedBy?: 'well-known' | 'dns-txt';
  problem?: string;
}
