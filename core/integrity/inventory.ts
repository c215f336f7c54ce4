import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The inventory of every script and stylesheet a payment page may load (PCI DSS 6.4.3):
 * `core/integrity/payment-page-inventory.json`, one line per asset, reviewed like code. Its hashes are
 * derived by the build (`npm run -s integrity -- inventory`), never typed; `test/unit/page-inventory.test.ts`
 * fails when a served asset differs from its line, and the page walk when a page loads anything not listed.
 */

const approval = {
  owner: z.string().min(1),
  justification: z.string().min(10),
  approvedBy: z.string().min(1),
  approvedOn: z.iso.date(),
};

const Sri = z.string().regex(/^sha384-[A-Za-z0-9+/]{64}$/);

/** One of our files, served at `/assets/<stem>.<content hash>.<ext>` (web/assets.ts). */
const FileAsset = z.strictObject({ name: z.string().regex(/^[a-z0-9.-]+\.(js|css)$/), kind: z.enum(['script', 'stylesheet']), sha384: Sri, ...approval });

/** A family of generated files: the rule says which paths, the generator makes each one; each file's hash is recorded when made. */
const GeneratedAsset = z.strictObject({
  rule: z.string().startsWith('^'),
  kind: z.enum(['script', 'stylesheet']),
  generator: z.string().min(1),
  ...approval,
});

export const Inventory = z.strictObject({ assets: z.array(FileAsset).min(1), generated: z.array(GeneratedAsset) });
export type Inventory = z.infer<typeof Inventory>;
export type InventoriedFile = z.infer<typeof FileAsset>;
export type InventoriedFamily = z.infer<typeof GeneratedAsset>;

export const INVENTORY_FILE = new URL('./payment-page-inventory.json', import.meta.url);

export function loadInventory(file: URL | string = INVENTORY_FILE): Inventory {
  return Inventory.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** The Subresource Integrity value of some bytes: what a page's `integrity` attribute and the inventory both carry. */
export function sri384(bytes: Uint8Array | string): string {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** `/assets/checkout.3f9a0c1b2d4e.js` → `checkout.js`: the name its inventory line gives. */
export function assetNameOf(path: string): string | undefined {
  const match = /^\/assets\/([a-z0-9-]+(?:\.min)?)\.[0-9a-f]{12}\.(js|css)$/.exec(path);
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/** What the inventory says of one path a page loaded: its file line, its generated family, or nothing (not authorised). */
export function inventoryLineOf(inventory: Inventory, path: string): { file: InventoriedFile } | { family: InventoriedFamily } | undefined {
  const name = assetNameOf(path);
  const file = name === undefined ? undefined : inventory.assets.find((asset) => asset.name === name);
  if (file) return { file };
  const family = inventory.generated.find((line) => new RegExp(line.rule).test(path));
  return family ? { family } : undefined;
}
