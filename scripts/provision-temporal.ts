import { ensureTemporalCli } from './temporal-cli.js';

/** `npm run temporal:provision`: find or build the Temporal CLI now, so later starts are quick. */
const cli = await ensureTemporalCli();
process.stdout.write(`Temporal CLI: ${cli}\n`);
