import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { Temporal } from '../../core/temporal/connection.js';

/** What every sandbox helper is built from. */
export interface SandboxDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
}
