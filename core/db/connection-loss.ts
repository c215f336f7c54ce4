import type { Logger } from '../logger.js';

/** What a dropped or refused PostgreSQL connection rejects with: socket errors, postgres.js's own, the server's shutdown codes. */
const CONNECTION_LOSS = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  // admin_shutdown, crash_shutdown, cannot_connect_now
  '57P01',
  '57P02',
  '57P03',
]);

export function isConnectionLoss(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return CONNECTION_LOSS.has(String(code)) || CONNECTION_LOSS.has(String(errno));
}

/**
 * When PostgreSQL restarts under load, postgres.js 3.4.9 can reject a promise nobody holds with the
 * connection's error (porsager/postgres#600): Node's default would end the process, taking every
 * request and activity in flight with it (test/reliability/postgres-restart.test.ts saw a worker die
 * so). Nobody awaits such a promise, so nothing is lost by logging it and carrying on; the pool
 * reconnects by itself. Any other unhandled rejection still ends the process, as by default.
 */
export function surviveOrphanedConnectionErrors(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (isConnectionLoss(reason)) {
      logger.warn({ err: reason }, 'a dropped database connection rejected a promise nobody awaited; carrying on');
      return;
    }
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });
}
