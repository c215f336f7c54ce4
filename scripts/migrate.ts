import { loadConfigOrExit } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { migrate } from '../core/db/migrate.js';

/** `node --import tsx scripts/migrate.ts`: apply pending migrations to DATABASE_URL and exit. */
const config = loadConfigOrExit();
const db = createDb(config.databaseUrl, { max: 1 });
try {
  const applied = await migrate(db);
  process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Schema up to date.\n');
} finally {
  await db.end();
}
