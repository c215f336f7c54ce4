import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { auditCsv } from '../../core/audit/audit-csv.js';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, listAudit, type AuditEntry, type AuditFilters } from '../../core/audit/audit-log.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import type { DashboardEnv } from './env.js';
import { auditPage, type AuditFilterForm } from './views/audit-log.js';

type C = Context<DashboardEnv>;

const PAGE_SIZE = 100;
/** The most entries one CSV export holds; more is refused with the advice to narrow the dates. */
const CSV_MAX_ENTRIES = 50_000;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)_([0-9a-f-]{36})$/;

const filterSchema = z.object({
  actor: z.string().trim().max(320),
  actorType: z.union([z.literal(''), z.enum(AUDIT_ACTOR_TYPES)]),
  action: z.union([z.literal(''), z.enum(AUDIT_ACTIONS)]),
  from: z.union([z.literal(''), z.string().regex(DATE)]),
  to: z.union([z.literal(''), z.string().regex(DATE)]),
  merchant: z.union([z.literal(''), z.uuid()]),
});

const day = (value: string, plusDays = 0) => (value ? new Date(Date.parse(`${value}T00:00:00Z`) + plusDays * DAY_MS) : undefined);

/**
 * The audit log's page and CSV export (issue 51, point 4), filtered by actor (an id, or part of a key's
 * name or a user's email), actor type, action and date range: a merchant sees its own entries, an
 * operator every merchant's and the operator-wide ones (and may narrow to one merchant).
 */
export function auditRoutes(deps: { config: Config; db: Db }, viewer: 'merchant' | 'operator') {
  const { db } = deps;
  const app = new Hono<DashboardEnv>();
  const base = viewer === 'merchant' ? '/dashboard/audit' : '/dashboard/operator/audit';

  function readFilters(c: C): { form: AuditFilterForm; error?: string; filters?: AuditFilters } {
    const q = (name: string) => c.req.query(name)?.trim() ?? '';
    const form: AuditFilterForm = { actor: q('actor'), actorType: q('actorType'), action: q('action'), from: q('from'), to: q('to'), merchant: q('merchant') };
    const parsed = filterSchema.safeParse(form);
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]!.path[0]);
      return {
        form,
        error: `The filter “${field}” is not valid: ${field === 'from' || field === 'to' ? 'enter a date such as 2030-01-31' : 'choose one of the list'}.`,
      };
    }
    const f = parsed.data;
    const cursor = CURSOR.exec(q('before'));
    const merchantId = viewer === 'merchant' ? c.get('merchant')!.platformUuid : f.merchant || undefined;
    const filters: AuditFilters = {
      ...(merchantId ? { merchantId } : {}),
      ...(f.actor ? { actor: f.actor } : {}),
      ...(f.actorType ? { actorType: f.actorType } : {}),
      ...(f.action ? { action: f.action } : {}),
      ...(f.from ? { from: day(f.from)! } : {}),
      ...(f.to ? { to: day(f.to, 1)! } : {}),
      ...(cursor ? { before: { at: new Date(cursor[1]!), id: cursor[2]! } } : {}),
    };
    return { form, filters };
  }

  const query = (form: AuditFilterForm, extra: Record<string, string> = {}) => {
    const params = new URLSearchParams(Object.entries({ ...form, ...extra }).filter(([, v]) => v !== ''));
    return params.size ? `?${params.toString()}` : '';
  };

  app.get('/audit', async (c) => {
    const { form, error, filters } = readFilters(c);
    const entries = filters ? await listAudit(db, { ...filters, limit: PAGE_SIZE + 1 }) : [];
    const page = entries.slice(0, PAGE_SIZE);
    const last = page.at(-1);
    const who = viewer === 'merchant' ? (await getMerchant(db, c.get('merchant')!.platformUuid)).name : 'Operator';
    return c.html(
      auditPage({
        viewer,
        who,
        csrf: c.get('csrf'),
        form,
        ...(error ? { error } : {}),
        entries: page,
        base,
        exportHref: `${base}/export.csv${query(form)}`,
        nextHref: entries.length > PAGE_SIZE && last ? `${base}${query(form, { before: `${last.at.toISOString()}_${last.id}` })}` : null,
      }),
      error ? 422 : 200,
    );
  });

  app.get('/audit/export.csv', async (c) => {
    const { error, filters } = readFilters(c);
    if (!filters) return c.text(`The filters were refused, so nothing was exported. ${error}`, 422);
    const entries: AuditEntry[] = [];
    let before = filters.before;
    for (;;) {
      const page = await listAudit(db, { ...filters, ...(before ? { before } : {}), limit: 1000 });
      entries.push(...page);
      if (entries.length > CSV_MAX_ENTRIES) return c.text(`More than ${CSV_MAX_ENTRIES} entries match: narrow the dates (from, to) and export each part.`, 422);
      const last = page.at(-1);
      if (page.length < 1000 || !last) break;
      before = { at: last.at, id: last.id };
    }
    c.header('Content-Disposition', `attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    return c.body(auditCsv(entries));
  });

  return app;
}
