import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import type { ErrorBody, ErrorCode } from '../../application/errors.js';
import { ERROR_STATUS } from '../../application/errors.js';
import { clientAddress, perAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { LegacyCspReport, recordViolations, ReportBatch, violationsOfBatch, violationsOfLegacy, type Violation } from '../../core/integrity/csp-reports.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows } from '../../core/rate-limits.js';
import type { WebMetrics } from '../metrics.js';
import { CSP_REPORT_PATH } from '../security-headers.js';

/** A CSP report is a few hundred bytes; a Reporting API batch of a few reports stays well under this. */
export const CSP_REPORT_MAX_BYTES = 16 * 1024;

const FORMATS: Record<string, { schema: z.ZodType; violations: (report: never) => Violation[] }> = {
  'application/csp-report': { schema: LegacyCspReport, violations: violationsOfLegacy },
  'application/reports+json': { schema: ReportBatch, violations: violationsOfBatch },
};

function refuse(c: Context, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { code, message, errors: [], requestId: '' };
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, ERROR_STATUS[code]);
}

/**
 * POST /csp-reports, where our pages' CSP (`report-uri`, `report-to`) and `Integrity-Policy` send
 * violations (web/security-headers.ts). Anyone can post here, so: counted per client address first
 * (RATE_LIMIT_CSP_REPORTS_PER_CLIENT), cut off at CSP_REPORT_MAX_BYTES while streaming, validated, and
 * stored deduplicated without any URL's query (core/integrity/csp-reports.ts). 204 when kept.
 */
export function cspReportRoutes(deps: { config: Config; db: Db; logger: Logger; metrics: WebMetrics }) {
  const { config, db, logger, metrics } = deps;
  const app = new Hono();
  app.post(
    CSP_REPORT_PATH,
    async (c, next) => {
      const { cspReportsPerClient, windowSeconds, ipv6Clients48 } = config.rateLimit;
      const hits = await countHitsAllOrNone(
        db,
        perAddress('csp-report', clientAddress(c, config.trustedProxyHops), cspReportsPerClient, windowSeconds, ipv6Clients48),
      );
      if (hits.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
      if (hits.allowed) return next();
      metrics.cspReportsRefused.inc({ reason: 'rate_limited' });
      return refuse(c, 'RATE_LIMITED', 'Too many reports from this address; try again later.', { 'Retry-After': String(hits.retryAfterSeconds) });
    },
    bodyLimit({
      maxSize: CSP_REPORT_MAX_BYTES,
      onError: (c) => {
        metrics.cspReportsRefused.inc({ reason: 'too_large' });
        return refuse(c, 'PAYLOAD_TOO_LARGE', `A report must be at most ${CSP_REPORT_MAX_BYTES} bytes.`, { Connection: 'close' });
      },
    }),
    async (c) => {
      const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      const format = FORMATS[mediaType];
      if (!format) {
        metrics.cspReportsRefused.inc({ reason: 'media_type' });
        return refuse(c, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/csp-report or application/reports+json.');
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(await c.req.text());
      } catch {
        metrics.cspReportsRefused.inc({ reason: 'malformed' });
        return refuse(c, 'INVALID_JSON', 'The body is not valid JSON.');
      }
      const report = format.schema.safeParse(parsed);
      if (!report.success) {
        metrics.cspReportsRefused.inc({ reason: 'malformed' });
        return refuse(c, 'VALIDATION_ERROR', `The body is not a ${mediaType} report.`);
      }
      const violations = format.violations(report.data as never);
      await recordViolations(db, violations);
      for (const v of violations) metrics.cspReports.inc({ type: v.reportType });
      return c.body(null, 204);
    },
  );
  return app;
}
