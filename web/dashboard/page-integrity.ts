import { Hono } from 'hono';
import type { Db } from '../../core/db/client.js';
import { listViolations } from '../../core/integrity/csp-reports.js';
import type { DashboardEnv } from './env.js';
import { pageIntegrityPage } from './views/page-integrity.js';

/** /dashboard/operator/integrity: what browsers reported from the payment pages (operators only, routes.ts). */
export function pageIntegrityRoutes(deps: { db: Db }) {
  const app = new Hono<DashboardEnv>();
  app.get('/', async (c) => c.html(pageIntegrityPage({ violations: await listViolations(deps.db), csrf: c.get('csrf') })));
  return app;
}
