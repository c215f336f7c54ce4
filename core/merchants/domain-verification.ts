import { resolveTxt as dnsResolveTxt } from 'node:dns/promises';
import https from 'node:https';
import type { NoAnswerError } from '../outbound/delivery-errors.js';
import { classifyNoAnswer } from '../outbound/no-answer.js';
import { assertConnectable, BlockedAddressError, guardedLookup, NO_LOOPBACK, webhookTargets, type WebhookTargets } from '../outbound/url-safety.js';
import type { DomainVerificationRow } from './merchant-store.js';

/**
 * Proof that a merchant controls a domain it registers. Registering is self-declared, so without it
 * the production rule (cart URLs on the merchant's registered domains, application/carts/url-policy.ts) would
 * bind strangers only: anyone could register shop.example and dress our page in that store's name.
 * Each merchant gets a token per domain and publishes it either
 *
 *   - at https://<domain>/.well-known/hosted-checkout-verification (the token on a line of its own;
 *     several merchants' tokens may share the file, one per line), or
 *   - in a DNS TXT record at _hosted-checkout.<domain>: `hosted-checkout-verification=<token>`.
 *
 * The check runs in the worker (activities/domain-verification/): when domains are registered, when
 * asked to (operator API, CLI, dashboard), and daily for every production domain; a domain whose token
 * is gone is unverified again. The file is fetched through the webhooks' outbound guard
 * (core/outbound/url-safety.ts): https only, public addresses only, checked on the address connected
 * to, no redirect followed. Verifying shop.example covers its subdomains, as registering it does.
 * Why a fetch got no answer is stored and shown as a category, like a webhook attempt's: never what
 * our resolver or a socket said (`getaddrinfo ENOTFOUND db.internal`), which goes to the worker's log.
 * Sandbox does not hold cart URLs to domains, so its domains are never checked.
 */

export const WELL_KNOWN_PATH = '/.well-known/hosted-checkout-verification';
export const TXT_RECORD_PREFIX = '_hosted-checkout';
export const TXT_VALUE_PREFIX = 'hosted-checkout-verification=';

/** At most this much of the file is read: a token file is a few lines. */
const MAX_FILE_BYTES = 4096;
const FETCH_TIMEOUT_MS = 10_000;

export const wellKnownUrl = (domain: string) => `https://${domain}${WELL_KNOWN_PATH}`;
export const txtRecordName = (domain: string) => `${TXT_RECORD_PREFIX}.${domain}`;

/**
 * What a fetch of the well-known file answered; when no HTTP answer came back, why as a category
 * (`error`, what a merchant may see) and as Node said it (`detail`, for operators' logs only).
 */
export type FetchVerificationFile = (url: string) => Promise<{ status: number; body: string } | FetchFailure>;
export interface FetchFailure {
  error: NoAnswerError;
  detail: string;
}

/** Each category in a merchant's words: a host that does not resolve and one we refuse read the same. */
const FETCH_FAILURE_WORDS: Record<NoAnswerError, string> = {
  unreachable_host: 'the host did not resolve to a public internet address',
  connection_refused: 'the server refused the connection',
  timeout: 'no complete answer within the time limit',
  tls: 'the TLS connection failed (certificate or protocol)',
  network: 'the connection failed before an answer',
  cancelled: 'the check was stopped before an answer',
};
/** The TXT records of a name, each as its strings (node:dns resolveTxt's shape). */
export type ResolveTxt = (name: string) => Promise<string[][]>;

export interface DomainCheckDeps {
  fetchVerificationFile: FetchVerificationFile;
  resolveTxt: ResolveTxt;
}

export type DomainCheckResult =
  | { verified: true; verifiedBy: 'well-known' | 'dns-txt' }
  /**
   * `conclusive`: an answer came back without the token (an HTTP status, a TXT answer); false: nothing
   * answered (network, DNS). `problem` is what the merchant is shown; `detail`, what Node said of a
   * fetch that got no answer, is for operators' logs only.
   */
  | { verified: false; problem: string; conclusive: boolean; detail?: string };

/** Whether the token is published for the domain: the well-known file first, then the TXT record. */
export async function checkDomain(domain: string, token: string, deps: DomainCheckDeps): Promise<DomainCheckResult> {
  const url = wellKnownUrl(domain);
  const file = await deps.fetchVerificationFile(url).catch((err: unknown): FetchFailure => ({ error: 'network', detail: String(err) }));
  if ('status' in file && file.status === 200 && file.body.split(/\r?\n/).some((line) => line.trim() === token))
    return { verified: true, verifiedBy: 'well-known' };

  let txt: string[][] | undefined;
  let txtProblem: string;
  try {
    txt = await deps.resolveTxt(txtRecordName(domain));
    if (txt.some((record) => record.join('').trim() === `${TXT_VALUE_PREFIX}${token}`)) return { verified: true, verifiedBy: 'dns-txt' };
    txtProblem = `no TXT record ${txtRecordName(domain)} holds ${TXT_VALUE_PREFIX}<token>`;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No such name, or no TXT there: an answer, just not the token.
    if (code === 'ENOTFOUND' || code === 'ENODATA') txt = [];
    txtProblem = `no TXT record ${txtRecordName(domain)}`;
  }

  const fileProblem =
    'error' in file
      ? `${url} could not be fetched (${file.error}: ${FETCH_FAILURE_WORDS[file.error]})`
      : file.status !== 200
        ? `${url} answered HTTP ${file.status}, not 200`
        : `${url} does not hold this merchant's token on a line of its own`;
  return {
    verified: false,
    problem: `${fileProblem}; ${txtProblem}`,
    conclusive: 'status' in file || txt !== undefined,
    ...('error' in file ? { detail: file.detail } : {}),
  };
}

/** What may be fetched: production's rules, whatever the deployment (no loopback, no private address). */
const VERIFICATION_TARGETS: WebhookTargets = webhookTargets('production', NO_LOOPBACK);

/**
 * GET of the well-known file through the webhooks' outbound guard: https, the address checked at
 * connect (guardedLookup) and IP literals before it (assertConnectable), no redirect followed (a 3xx
 * is just not 200), bounded in time and size. A failure is a category; what Node said is its detail.
 */
export const fetchVerificationFile: FetchVerificationFile = (rawUrl) =>
  new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(rawUrl);
      if (url.protocol !== 'https:') throw new BlockedAddressError('must be https');
      assertConnectable(url, VERIFICATION_TARGETS);
    } catch (err) {
      resolve(fetchFailure(err));
      return;
    }
    const request = https.request(url, {
      method: 'GET',
      headers: { accept: 'text/plain', 'user-agent': 'hosted-checkout-domain-verification' },
      lookup: guardedLookup(VERIFICATION_TARGETS),
      agent: false,
    });
    const timeout = Object.assign(new Error(`no complete answer within ${FETCH_TIMEOUT_MS} ms`), { name: 'TimeoutError' });
    const timer = setTimeout(() => request.destroy(timeout), FETCH_TIMEOUT_MS);
    const done = (answer: { status: number; body: string } | FetchFailure) => {
      clearTimeout(timer);
      resolve(answer);
    };
    request.on('error', (err) => done(fetchFailure(err)));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        const room = MAX_FILE_BYTES - kept;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
        if (kept >= MAX_FILE_BYTES) finish();
      });
      response.on('end', finish);
      response.on('error', finish);
    });
    request.end();
  });

/** A failed fetch as its category, with the guard's own detail for a refused address. */
function fetchFailure(err: unknown): FetchFailure {
  const error = err as NodeJS.ErrnoException;
  return { error: classifyNoAnswer(error), detail: (err instanceof BlockedAddressError ? err.detail : String(error.message)).slice(0, 500) };
}

export const resolveTxt: ResolveTxt = (name) => dnsResolveTxt(name);

/** A domain's verification as operators, the dashboard and the merchant API show it, with what to publish. */
export interface DomainVerificationView {
  domain: string;
  /** `not-required`: sandbox does not check domains. */
  status: 'verified' | 'unverified' | 'not-required';
  token: string;
  /** Where to publish the token (the file's body: the token on a line of its own). */
  wellKnownUrl: string;
  /** Or this DNS TXT record. */
  txtRecord: { name: string; value: string };
  verifiedAt: string | null;
  verifiedBy: 'well-known' | 'dns-txt' | null;
  checkedAt: string | null;
  /** Why the last check did not verify it. */
  problem: string | null;
}

export function domainVerificationView(row: DomainVerificationRow, environment: 'sandbox' | 'production'): DomainVerificationView {
  return {
    domain: row.domain,
    status: environment === 'sandbox' ? 'not-required' : row.verifiedAt ? 'verified' : 'unverified',
    token: row.token,
    wellKnownUrl: wellKnownUrl(row.domain),
    txtRecord: { name: txtRecordName(row.domain), value: `${TXT_VALUE_PREFIX}${row.token}` },
    verifiedAt: row.verifiedAt,
    verifiedBy: row.verifiedBy,
    checkedAt: row.checkedAt,
    problem: row.problem,
  };
}
