import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './client.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant works; it only has to be the same for every process that migrates this database.
const MIGRATION_LOCK = 7_233_3000;

/**
 * Applies `migrations/NNN_name.sql` in order, all in one transaction, recording each in
 * `schema_migrations`. Safe to run twice and from several processes at once (advisory lock).
 */
export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();
  return db.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const applied = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    const fresh: string[] = [];
    for (const file of files) {
      if (applied.has(file)) continue;
      await tx.unsafe(await readFile(MIGRATIONS_DIR + file, 'utf8'));
      await tx`insert into schema_migrations (name) values (${file})`;
      fresh.push(file);
    }
    return fresh;
  });
}
