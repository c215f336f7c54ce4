import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Db } from '../../core/db/client.js';
import type { Config } from '../../core/config.js';
import { listViolations } from '../../core/integrity/csp-reports.js';
import { evidenceMarkdown, gatherEvidence } from '../../core/integrity/evidence-report.js';
import { loadInventory } from '../../core/integrity/inventory.js';
import { acknowledgeAlert, checkHistory, listUnclosedAlerts } from '../../core/integrity/tamper-check.js';
import { dashboardActor, dashboardAudit } from './audit.js';
import type { DashboardEnv } from './env.js';
import { pageIntegrityPage, type IntegrityNotice } from './views/page-integrity.js';

const DAY_MS = 24 * 3600 * 1000;
/** The runs the page lists and the export's default range: 90 days (11.6.1 asks weekly at least; a quarter of runs shows it). */
const EVIDENCE_DAYS = 90;

/**
 * /dashboard/operator/integrity (operators only, web/dashboard/access.ts): the tamper check's alerts
 * not closed, with acknowledgement and note by the signed-in operator (audit-logged), its recent runs,
 * what browsers reported, and the evidence export (`?from=&to=`, dates; the last 90 days by default).
 */
export function pageIntegrityRoutes(deps: { db: Db; config: Pick<Config, 'trustedProxyHops'> }) {
  const { db } = deps;
  const app = new Hono<DashboardEnv>();
  const audit = dashboardAudit(deps);

  async function respond(c: Context<DashboardEnv>, notice?: IntegrityNotice, status: 200 | 404 | 422 = 200) {
    const now = new Date();
    const [alerts, history, violations] = await Promise.all([
      listUnclosedAlerts(db),
      checkHistory(db, { from: new Date(now.getTime() - EVIDENCE_DAYS * DAY_MS), to: new Date(now.getTime() + 60_000) }),
      listViolations(db),
    ]);
    return c.html(pageIntegrityPage({ alerts, runs: history.runs.slice(-20).reverse(), violations, csrf: c.get('csrf'), notice }), status);
  }

  app.get('/', (c) => respond(c));

  app.post('/alerts/:id/acknowledge', async (c) => {
    const id = c.req.param('id');
    const body = await c.req.parseBody();
    const note = typeof body.note === 'string' ? body.note.trim() : '';
    if (note.length < 3 || note.length > 1000) return respond(c, { error: 'Say in a note (3 to 1000 characters) what you found and did.' }, 422);
    const actor = dashboardActor(c);
    const by = actor.type === 'user' ? actor.email : actor.type === 'api_key' ? actor.name : 'OPERATOR_TOKEN';
    const alert = /^\d{1,18}$/.test(id) ? await acknowledgeAlert(db, { id, by, note }) : undefined;
    if (!alert) return respond(c, { error: 'No open alert of that number: it may have been acknowledged already.' }, 404);
    await audit(c, null, { action: 'integrity_alert.acknowledge', target: `integrity_alert:${alert.id}`, after: { status: alert.status, note } });
    return respond(c, {
      done:
        alert.status === 'closed'
          ? `Alert ${alert.id} acknowledged and closed: the last run no longer found it.`
          : `Alert ${alert.id} acknowledged: it closes once a run no longer finds it.`,
    });
  });

  async function evidenceOf(c: { req: { query(name: string): string | undefined } }) {
    const to = c.req.query('to') ? new Date(c.req.query('to')!) : new Date(Date.now() + DAY_MS);
    const from = c.req.query('from') ? new Date(c.req.query('from')!) : new Date(to.getTime() - EVIDENCE_DAYS * DAY_MS);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) return undefined;
    return gatherEvidence(db, { from, to, inventory: loadInventory() });
  }
  const BAD_RANGE = 'from and to must be dates (YYYY-MM-DD), from before to';

  app.get('/evidence.json', async (c) => {
    const evidence = await evidenceOf(c);
    if (!evidence) return c.text(BAD_RANGE, 400);
    c.header('content-disposition', 'attachment; filename="page-integrity-evidence.json"');
    return c.json(evidence);
  });
  app.get('/evidence.md', async (c) => {
    const evidence = await evidenceOf(c);
    if (!evidence) return c.text(BAD_RANGE, 400);
    c.header('content-disposition', 'attachment; filename="page-integrity-evidence.md"');
    return c.body(evidenceMarkdown(evidence), 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });
  return app;
}
