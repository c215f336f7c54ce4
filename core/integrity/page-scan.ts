import { inventoryLineOf, sri384, type Inventory } from './inventory.js';

/** One script or stylesheet a page's HTML asks the browser to load, as the page names it. */
export interface PageLoad {
  kind: 'script' | 'stylesheet' | 'inline-script';
  path: string;
  integrity: string | null;
}

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`, 'i').exec(tag)?.[1] ?? null;

/** The scripts and stylesheets of a page (ours: attributes double-quoted by hono/html); a script without `src` is an inline script. */
export function pageLoads(html: string): PageLoad[] {
  const loads: PageLoad[] = [];
  for (const [tag] of html.matchAll(/<script\b[^>]*>/gi)) {
    const src = attribute(tag, 'src');
    loads.push(
      src === null ? { kind: 'inline-script', path: '(inline)', integrity: null } : { kind: 'script', path: src, integrity: attribute(tag, 'integrity') },
    );
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const href = attribute(tag, 'href');
    if (href !== null && /\srel\s*=\s*"stylesheet"/i.test(tag)) loads.push({ kind: 'stylesheet', path: href, integrity: attribute(tag, 'integrity') });
  }
  return loads;
}

/** What a browser received for one load: its path and the SRI of its bytes. */
export interface ReceivedLoad extends PageLoad {
  received: string | null;
}

/**
 * Fetches what a page loads (as the browser would, from the page's origin) and hashes each body.
 * Anything not on our origin is not fetched: it is reported as un-inventoried all the same.
 */
export async function receiveLoads(pageUrl: string, html: string, fetchBytes: (url: string) => Promise<Uint8Array>): Promise<ReceivedLoad[]> {
  const origin = new URL(pageUrl).origin;
  return Promise.all(
    pageLoads(html).map(async (load) => {
      if (load.kind === 'inline-script') return { ...load, received: null };
      const url = new URL(load.path, pageUrl);
      return { ...load, path: url.origin === origin ? url.pathname : url.href, received: url.origin === origin ? sri384(await fetchBytes(url.href)) : null };
    }),
  );
}

/**
 * Every way what a page loaded differs from the inventory, in words: a load the inventory lacks, bytes
 * whose hash is not the inventory's, an `integrity` attribute missing or not the bytes', an inline script.
 * `generatedHashes` are the hashes recorded when each generated file was made, by path.
 */
export function loadDifferences(inventory: Inventory, loads: ReceivedLoad[], generatedHashes: ReadonlyMap<string, string> = new Map()): string[] {
  return loads.flatMap((load): string[] => {
    if (load.kind === 'inline-script') return ['an inline script, which the inventory cannot list'];
    const line = inventoryLineOf(inventory, load.path);
    if (!line) return [`${load.path}: not in the inventory`];
    const differences: string[] = [];
    const expected = 'file' in line ? line.file.sha384 : generatedHashes.get(load.path);
    if ('file' in line && line.file.kind !== load.kind) differences.push(`${load.path}: loaded as a ${load.kind}, inventoried as a ${line.file.kind}`);
    if (expected !== undefined && load.received !== expected) differences.push(`${load.path}: received ${load.received}, inventory ${expected}`);
    if (load.integrity === null) differences.push(`${load.path}: no integrity attribute`);
    else if (load.integrity !== load.received)
      differences.push(`${load.path}: integrity attribute ${load.integrity} is not the bytes received (${load.received})`);
    return differences;
  });
}
