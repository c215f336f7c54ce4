import { readFileSync, writeFileSync } from 'node:fs';
import { INVENTORY_FILE, Inventory, sri384 } from '../core/integrity/inventory.js';
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

const [command] = process.argv.slice(2);
if (command === 'inventory') deriveInventoryHashes();
else {
  console.error('usage: npm run -s integrity -- inventory');
  process.exitCode = 2;
}
