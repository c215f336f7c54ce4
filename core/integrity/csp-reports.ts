import { createHash } from 'node:crypto';
import { z } from 'zod';
import { RECOVERY_PATH } from '../checkout/recovery-token.js';
import type { Db } from '../db/client.js';

/**
 * The one writer of `csp_reports` (migration 050): the violations browsers report from our pages, in
 * the two formats browsers send (`application/csp-report`, the old report-uri; `application/reports+json`,
 * the Reporting API's report-to and Integrity-Policy), stored once per distinct violation and counted.
 * No URL is kept with its query or fragment, and a recovery link's path token is replaced: the cart
 * `token` and the recovery token are bearers.
 */

const Text = z.string().max(4096);
const Position = z.number().int().nonnegative().max(10_000_000);

/** `application/csp-report`: one violation, the keys CSP Level 2 named. */
export const LegacyCspReport = z.object({
  'csp-report': z.object({
    'document-uri': Text,
    'violated-directive': Text.optional(),
    'effective-directive': Text.optional(),
    'blocked-uri': Text.optional(),
    'source-file': Text.optional(),
    'line-number': Position.optional(),
    'column-number': Position.optional(),
    disposition: z.enum(['enforce', 'report']).optional(),
  }),
});

const CspViolationBody = z.object({
  documentURL: Text,
  effectiveDirective: Text,
  blockedURL: Text.nullish(),
  sourceFile: Text.nullish(),
  lineNumber: Position.nullish(),
  columnNumber: Position.nullish(),
  disposition: z.enum(['enforce', 'report']),
});
const IntegrityViolationBody = z.object({ documentURL: Text, blockedURL: Text, destination: Text, reportOnly: z.boolean() });

/** `application/reports+json`: a batch; other report types an endpoint may be sent are accepted and not kept. */
export const ReportBatch = z
  .array(
    z.union([
      z.object({ type: z.literal('csp-violation'), body: CspViolationBody }),
      z.object({ type: z.literal('integrity-violation'), body: IntegrityViolationBody }),
      z.object({ type: z.string().regex(/^(?!csp-violation$|integrity-violation$)[a-z-]{1,64}$/), body: z.unknown() }),
    ]),
  )
  .max(100);

export interface Violation {
  reportType: 'csp-violation' | 'integrity-violation';
  documentUrl: string;
  directive: string;
  blockedUrl: string;
  sourceFile: string | null;
  lineNumber: number | null;
  columnNumber: number | null;
  disposition: 'enforce' | 'report';
}

/** A reported URL as we keep it: origin and path only, a recovery token replaced; a CSP keyword (`inline`, `eval`) as it is. */
export function withoutBearers(reported: string): string {
  if (/^[a-z-]{1,32}$/.test(reported)) return reported;
  let url: URL;
  try {
    url = new URL(reported);
  } catch {
    return '(not a URL)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return url.protocol.replace(/:$/, '');
  const path = url.pathname.startsWith(`${RECOVERY_PATH}/`) ? `${RECOVERY_PATH}/:token` : url.pathname;
  return `${url.origin}${path}`;
}

const optionalUrl = (value: string | null | undefined) => (value ? withoutBearers(value) : null);

/** The violations of a legacy report: one. */
export function violationsOfLegacy(report: z.infer<typeof LegacyCspReport>): Violation[] {
  const r = report['csp-report'];
  return [
    {
      reportType: 'csp-violation',
      documentUrl: withoutBearers(r['document-uri']),
      directive: (r['effective-directive'] ?? r['violated-directive'] ?? '').split(' ')[0] || '(none)',
      blockedUrl: withoutBearers(r['blocked-uri'] || 'inline'),
      sourceFile: optionalUrl(r['source-file']),
      lineNumber: r['line-number'] ?? null,
      columnNumber: r['column-number'] ?? null,
      disposition: r.disposition ?? 'enforce',
    },
  ];
}

/** The violations of a Reporting API batch: its csp- and integrity-violation reports. */
export function violationsOfBatch(batch: z.infer<typeof ReportBatch>): Violation[] {
  return batch.flatMap((report): Violation[] => {
    // The schema checked each body by its type; TypeScript cannot narrow a literal type against the catch-all string.
    if (report.type === 'csp-violation') {
      const body = report.body as z.infer<typeof CspViolationBody>;
      return [
        {
          reportType: 'csp-violation',
          documentUrl: withoutBearers(body.documentURL),
          directive: body.effectiveDirective,
          blockedUrl: withoutBearers(body.blockedURL || 'inline'),
          sourceFile: optionalUrl(body.sourceFile),
          lineNumber: body.lineNumber ?? null,
          columnNumber: body.columnNumber ?? null,
          disposition: body.disposition,
        },
      ];
    }
    if (report.type === 'integrity-violation') {
      const body = report.body as z.infer<typeof IntegrityViolationBody>;
      return [
        {
          reportType: 'integrity-violation',
          documentUrl: withoutBearers(body.documentURL),
          directive: `integrity-policy ${body.destination}`.slice(0, 100),
          blockedUrl: withoutBearers(body.blockedURL),
          sourceFile: null,
          lineNumber: null,
          columnNumber: null,
          disposition: body.reportOnly ? 'report' : 'enforce',
        },
      ];
    }
    return [];
  });
}

const fingerprintOf = (v: Violation) =>
  createHash('sha256')
    .update(JSON.stringify([v.reportType, v.documentUrl, v.directive, v.blockedUrl, v.sourceFile, v.lineNumber, v.columnNumber, v.disposition]))
    .digest('hex');

/** Stores each violation once; the same one again is counted on its row. */
export async function recordViolations(db: Db, violations: Violation[]): Promise<void> {
  for (const v of violations) {
    await db`
      insert into csp_reports (fingerprint, report_type, document_url, directive, blocked_url, source_file, line_number, column_number, disposition)
      values (${fingerprintOf(v)}, ${v.reportType}, ${v.documentUrl}, ${v.directive}, ${v.blockedUrl}, ${v.sourceFile}, ${v.lineNumber}, ${v.columnNumber}, ${v.disposition})
      on conflict (fingerprint) do update set times = csp_reports.times + 1, last_seen_at = now()`;
  }
}

export interface StoredViolation extends Violation {
  id: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  times: number;
}

/** The most recently seen violations, for operators. */
export async function listViolations(db: Db, limit = 200): Promise<StoredViolation[]> {
  return db<StoredViolation[]>`
    select id::text, report_type as "reportType", document_url as "documentUrl", directive, blocked_url as "blockedUrl",
           source_file as "sourceFile", line_number as "lineNumber", column_number as "columnNumber", disposition,
           first_seen_at as "firstSeenAt", last_seen_at as "lastSeenAt", times
    from csp_reports order by last_seen_at desc, id desc limit ${limit}`;
}
