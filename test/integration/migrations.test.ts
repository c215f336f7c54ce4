import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createDb } from '../../core/db/client.js';
import { migrate } from '../../core/db/migrate.js';

describe('migrations', () => {
  const db = createDb(inject('databaseUrl'), { max: 4 });
  afterAll(() => db.end());

  it('are recorded, and running them again (even concurrently) applies nothing', async () => {
    const again = await Promise.all([migrate(db), migrate(db), migrate(db)]);
    expect(again).toEqual([[], [], []]);
    const recorded = await db<{ name: string }[]>`select name from schema_migrations order by name`;
    const files = (await readdir(new URL('../../core/db/migrations/', import.meta.url))).filter((f) => f.endsWith('.sql')).sort();
    expect(recorded.map((r) => r.name)).toEqual(files);
  });
});
