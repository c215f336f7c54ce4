import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import { MAX_DOMAINS, normalizeDomain } from './domains.js';
import { domainVerificationView, type DomainVerificationView } from './domain-verification.js';
import { brandPalette, explainPalette, normalizeBrandColour, type BrandPalette } from '../brand/brand-colours.js';
import {
  replaceDomains,
  selectMerchants,
  setBrandColour,
  setMerchantStatus,
  setSavedCardsAllowed,
  type EndpointStatus,
  type MerchantRow,
} from './merchant-store.js';

/**
 * A merchant as operators (CLI and API) and the dashboard see it: its summary, its registered domains
 * (each checked by core/merchants/domains.ts before it is stored) and whether it takes carts. Its
 * registration is ./registration.ts; its API key ./api-keys.ts; its webhook endpoint and secrets
 * ./webhook-endpoints.ts and ./webhook-secrets.ts.
 */

export interface MerchantSummary {
  platformUuid: string;
  name: string;
  environment: Environment;
  status: 'active' | 'inactive';
  webhookUrl: string;
  endpointStatus: EndpointStatus;
  endpointDisabledReason: string | null;
  /** Disabled by an operator: only an operator enables it again; the merchant's saves and replays do not. */
  endpointDisabledByOperator: boolean;
  domains: string[];
  /**
   * Each domain's proof of control (core/merchants/domain-verification.ts): its status and the token
   * to publish. Production takes carts only on verified ones; sandbox does not check them.
   */
  domainVerification: DomainVerificationView[];
  /** When true, create-cart for this merchant needs Authorization: Bearer <its API key>. */
  requireApiKeyForCarts: boolean;
  /** The start of its active API key, to tell keys apart (`sk_sandbox_ab12`); null when it has none. */
  apiKeyPrefix: string | null;
  /** Its brand colour, `#rrggbb`; null: the page's own colours. */
  brandColour: string | null;
  /** The colours the page derives from it and why (core/brand/brand-colours.ts); null without one. */
  brandPalette: (BrandPalette & { explanation: string }) | null;
  /** Its checkout offers the customer's saved cards after the code (docs/saved-cards.md); on by default. */
  savedCardsAllowed: boolean;
  createdAt: string;
}

export class MerchantNotFoundError extends Error {
  override name = 'MerchantNotFoundError';
  constructor(readonly platformUuid: string) {
    super(`no merchant has platformUuid ${platformUuid}`);
  }
}

export class DomainsRejectedError extends Error {
  override name = 'DomainsRejectedError';
  /** `index` is the entry's position in the list given, or undefined when the list as a whole is wrong. */
  constructor(readonly problems: Array<{ index?: number; message: string }>) {
    super(`domains ${problems.map((p) => (p.index === undefined ? p.message : `[${p.index}] ${p.message}`)).join('; ')}`);
  }
}

/** The stored form of each entry (lower case, IDNA), duplicates dropped; every bad entry reported at once. */
export function normalizeDomains(domains: readonly string[]): string[] {
  if (domains.length > MAX_DOMAINS) throw new DomainsRejectedError([{ message: `must hold at most ${MAX_DOMAINS} domains` }]);
  const normalized: string[] = [];
  const problems: Array<{ index: number; message: string }> = [];
  domains.forEach((value, index) => {
    const result = normalizeDomain(value);
    if ('problem' in result) problems.push({ index, message: `${JSON.stringify(value)} ${result.problem}` });
    else if (!normalized.includes(result.domain)) normalized.push(result.domain);
  });
  if (problems.length) throw new DomainsRejectedError(problems);
  return normalized;
}

const toSummary = (r: MerchantRow): MerchantSummary => ({
  platformUuid: r.platform_uuid,
  name: r.name,
  environment: r.environment,
  status: r.status,
  webhookUrl: r.url,
  endpointStatus: r.endpoint_status,
  endpointDisabledReason: r.disabled_reason,
  endpointDisabledByOperator: r.disabled_by_operator,
  domains: r.domains,
  domainVerification: r.domain_verification.map((row) => domainVerificationView(row, r.environment)),
  requireApiKeyForCarts: r.require_api_key_for_carts,
  apiKeyPrefix: r.api_key_prefix,
  brandColour: r.brand_colour,
  brandPalette: r.brand_colour ? withExplanation(brandPalette(r.brand_colour)) : null,
  savedCardsAllowed: r.saved_cards_allowed,
  createdAt: r.created_at.toISOString(),
});

export async function listMerchants(db: Db, environment?: Environment): Promise<MerchantSummary[]> {
  return (await selectMerchants(db, environment ? { environment } : {})).map(toSummary);
}

export async function getMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  const [row] = await selectMerchants(db, { platformUuid });
  if (!row) throw new MerchantNotFoundError(platformUuid);
  return toSummary(row);
}

/**
 * Replaces the merchant's registered domains; an empty list stops a production merchant from taking
 * carts. A domain kept keeps its token and verification; a new one starts unverified (the caller asks
 * the worker to check it: workflows/domain-verification/client.ts).
 */
export async function setMerchantDomains(db: Db, platformUuid: string, domains: readonly string[]): Promise<MerchantSummary> {
  const normalized = normalizeDomains(domains);
  if (!(await replaceDomains(db, platformUuid, normalized))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

export class BrandColourRejectedError extends Error {
  override name = 'BrandColourRejectedError';
  constructor(readonly given: string) {
    super(`brand colour ${JSON.stringify(given)} is not a hex colour such as #1a73e8`);
  }
}

/**
 * Sets (or, with null, clears) the merchant's brand colour. Any hex colour is taken: one too light to
 * read is darkened on the page, and the answer's brandPalette says to what and why.
 */
export async function setMerchantBrandColour(db: Db, platformUuid: string, colour: string | null): Promise<MerchantSummary> {
  const normalized = colour === null ? null : normalizeBrandColour(colour);
  if (normalized === undefined) throw new BrandColourRejectedError(colour!);
  if (!(await setBrandColour(db, platformUuid, normalized))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** Turns the offer of saved cards at the merchant's checkout on or off (docs/saved-cards.md). */
export async function setMerchantSavedCards(db: Db, platformUuid: string, allowed: boolean): Promise<MerchantSummary> {
  if (!(await setSavedCardsAllowed(db, platformUuid, allowed))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

const withExplanation = (palette: BrandPalette) => ({ ...palette, explanation: explainPalette(palette) });

/** Stops new carts for the merchant; events of carts already created are still delivered. */
export async function deactivateMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  if (!(await setMerchantStatus(db, platformUuid, 'inactive'))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** The merchant takes carts (and its API key works) again. */
export async function activateMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  if (!(await setMerchantStatus(db, platformUuid, 'active'))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}
