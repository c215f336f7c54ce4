import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDb, type Db } from '../../core/db/client.js';
import { migrate } from '../../core/db/migrate.js';

/**
 * A database of its own on the run's PostgreSQL server, migrated, for a describe block whose test
 * touches every row of a table (a purge, a reseal): the other files' rows must be out of its reach.
 * Dropped afterwards. The URL is known at once; `db` is there once the block's hooks have run.
 */
export function useOwnDatabase(prefix: string): { url: string; db: () => Db } {
  const name = `${prefix}_${randomUUID().replaceAll('-', '')}`;
  const server = new URL(inject('databaseUrl'));
  const url = Object.assign(new URL(server), { pathname: `/${name}` }).toString();
  let admin: Db | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    admin = createDb(server.toString(), { max: 1 });
    await admin.unsafe(`create database ${name}`);
    db = createDb(url, { max: 2 });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.end();
    await admin?.unsafe(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });
  return {
    url,
    db: () => {
      if (!db) throw new Error('the database is not ready yet (used outside a test or hook)');
      return db;
    },
  };
}
