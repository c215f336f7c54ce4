import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.js';

export interface Temporal {
  connection: Connection;
  client: Client;
}

/** Connects lazily: the API can start (and answer /readyz with 503) before Temporal is up. */
export function connectTemporal(config: Pick<Config, 'temporal'>): Temporal {
  const connection = Connection.lazy({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return { connection, client };
}

/**
 * Runs a Temporal call with a deadline. Without one, a query or update waits for as long as no worker
 * polls, and an HTTP request would hang with it.
 */
export function withDeadline<T>(temporal: Temporal, ms: number, fn: () => Promise<T>): Promise<T> {
  return temporal.connection.withDeadline(Date.now() + ms, fn);
}
