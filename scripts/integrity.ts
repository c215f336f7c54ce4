import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { evidenceMarkdown, gatherEvidence } from '../core/integrity/evidence-report.js';
import { INVENTORY_FILE, Inventory, loadInventory, sri384 } from '../core/integrity/inventory.js';
import { servedPaymentPageFiles } from '../web/assets.js';

/**
 * `npm run -s integrity -- inventory`: the build's side of the payment-page inventory
 * (core/integrity/payment-page-inventory.json). Writes each line's sha384 from the bytes the page serves
 * for it, and leaves owner, justification and approval to the person who adds or changes the line:
 * the change is reviewed in the commit that carries it.
 */
function deriveInventoryHashes(): void {
  const raw = JSON.parse(readFileSync(INVENTORY_FILE, 'utf8')) as { assets: Array<{ name: string; sha384?: string }> };
  const served = new Map(servedPaymentPageFiles().map(({ name, body }) => [name, body]));
  for (const line of raw.assets) {
    const body = served.get(line.name);
    if (!body) throw new Error(`${line.name}: in the inventory, but web/assets.ts serves no such asset`);
    line.sha384 = sri384(body);
  }
  Inventory.parse(raw);
  writeFileSync(INVENTORY_FILE, `${JSON.stringify(raw, null, 2)}\n`);
  console.log(`${raw.assets.length} inventory hashes written to core/integrity/payment-page-inventory.json`);
}

/**
 * `npm run -s integrity -- report --from 2026-11-01 --to 2026-12-01 [--out <dir>]`: the evidence of
 * core/integrity/evidence-report.ts for runs and alerts from `--from` (inclusive) to `--to` (exclusive),
 * written as `page-integrity-<from>-<to>.md` and `.json` (default: the current directory).
 */
async function writeEvidenceReport(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string', default: '.' } } });
  const from = new Date(values.from ?? '');
  const to = new Date(values.to ?? '');
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) {
    console.error('report needs --from and --to, dates (YYYY-MM-DD or ISO 8601) with --from before --to');
    process.exitCode = 2;
    return;
  }
  const config = loadConfigOrExit();
  const db = createDb(config.databaseUrl);
  try {
    const evidence = await gatherEvidence(db, { from, to, inventory: loadInventory() });
    const stem = path.join(values.out, `page-integrity-${values.from}-${values.to}`);
    writeFileSync(`${stem}.json`, `${JSON.stringify(evidence, null, 2)}\n`);
    writeFileSync(`${stem}.md`, evidenceMarkdown(evidence));
    console.log(`${evidence.runs.length} runs and ${evidence.alerts.length} alerts written to ${stem}.md and ${stem}.json`);
  } finally {
    await db.end();
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'inventory') deriveInventoryHashes();
else if (command === 'report') await writeEvidenceReport(rest);
else {
  console.error('usage: npm run -s integrity -- inventory | report --from <date> --to <date> [--out <dir>]');
  process.exitCode = 2;
}
