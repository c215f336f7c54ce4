import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { Temporal } from '../../core/temporal/connection.js';
import type { WebMetrics } from '../metrics.js';

/** What the checkout page's routes are built from (web/app.ts hands it to checkoutRoutes, which hands it to the link and recovery routes). */
export interface CheckoutDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  metrics: WebMetrics;
}
