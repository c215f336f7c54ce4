import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { createLedgerActivities } from './ledger.js';
import { createWebhookEventActivities } from './webhook-events.js';

export interface ActivityDeps {
  config: Config;
  db: Db;
  logger: Logger;
}

/** Every activity the worker registers, built from explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLedgerActivities(deps.db),
    ...createWebhookEventActivities(deps.db),
  };
}

export type CartActivities = ReturnType<typeof createActivities>;
