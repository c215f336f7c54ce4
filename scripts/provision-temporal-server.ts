import { ensureTemporalServer } from './temporal-sql-server.js';

/** `npm run temporal-server:provision`: find or build temporal-server, its SQL schema tool and schema now (minutes, once). */
const server = await ensureTemporalServer();
process.stdout.write(`temporal-server: ${server}\n`);
