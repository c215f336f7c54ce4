import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { brandPalette, brandStylesheet } from '../core/brand/brand-colours.js';
import { sri384 } from '../core/integrity/inventory.js';
import { acceptedEncoding, type Encoding } from './compression.js';
import { EMBED_SCRIPT_BODY } from './embed-script.js';

const require = createRequire(import.meta.url);
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** Served from our own origin: no third-party script runs next to a card form. */
const SOURCES: Record<string, { file: string | URL; type: string }> = {
  'htmx.min.js': { file: require.resolve('htmx.org/dist/htmx.min.js'), type: JS },
  'checkout.js': { file: new URL('./assets/checkout.js', import.meta.url), type: JS },
  'checkout-embedded.js': { file: new URL('./assets/checkout-embedded.js', import.meta.url), type: JS },
  'checkout.css': { file: new URL('./assets/checkout.css', import.meta.url), type: CSS },
  'dashboard.js': { file: new URL('./assets/dashboard.js', import.meta.url), type: JS },
  'dashboard.css': { file: new URL('./assets/dashboard.css', import.meta.url), type: CSS },
  // The package exports only its modules: the browser bundle is found beside them.
  'simplewebauthn-browser.js': { file: path.join(path.dirname(require.resolve('@simplewebauthn/browser')), '../dist/bundle/index.umd.min.js'), type: JS },
  'dashboard-passkeys.js': { file: new URL('./assets/dashboard-passkeys.js', import.meta.url), type: JS },
};

interface Asset {
  type: string;
  /** `/assets/checkout.3f9a0c1b2d.css`: the name changes with the content, so a browser may keep it for a year. */
  hashedPath: string;
  /** Its Subresource Integrity value (sha384), from the bytes served: the page's `integrity` attribute. */
  integrity: string;
  bodies: Record<Encoding | 'identity', Buffer>;
}

/** Compressed once at start, as hard as brotli and gzip go: every customer downloads the same bytes. */
function loadAsset(name: string, source: { file: string | URL; type: string }): Asset {
  const body = readFileSync(source.file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return {
    type: source.type,
    hashedPath: `/assets/${name.slice(0, dot)}.${hash}${name.slice(dot)}`,
    integrity: sri384(body),
    bodies: {
      identity: body,
      br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
      gzip: gzipSync(body, { level: constants.Z_BEST_COMPRESSION }),
    },
  };
}

const ASSETS = new Map(Object.entries(SOURCES).map(([name, source]) => [name, loadAsset(name, source)]));
const BY_PATH = new Map([...ASSETS.values()].map((asset) => [asset.hashedPath, asset]));

export type AssetName =
  | 'htmx.min.js'
  | 'checkout.js'
  | 'checkout-embedded.js'
  | 'checkout.css'
  | 'dashboard.js'
  | 'dashboard.css'
  | 'simplewebauthn-browser.js'
  | 'dashboard-passkeys.js';

/** The content-hashed address of one of our assets, for a page's <link> or <script>. */
export function assetPath(name: AssetName): string {
  return ASSETS.get(name)!.hashedPath;
}

/** The `integrity` attribute of one of our assets (SRI, sha384 of the bytes served). */
export function assetIntegrity(name: AssetName): string {
  return ASSETS.get(name)!.integrity;
}

/** Every asset's name and the bytes served for it: what `npm run -s integrity -- inventory` hashes into the inventory. */
export function servedAssets(): Array<{ name: string; body: Buffer }> {
  return [...ASSETS].map(([name, asset]) => ({ name, body: asset.bodies.identity }));
}

/** Every file of ours a payment page loads, by its inventory name: our assets, and the merchant's page's `/embed.js` (web/embed-script.ts). */
export function servedPaymentPageFiles(): Array<{ name: string; body: Buffer }> {
  return [...servedAssets(), { name: 'embed.js', body: EMBED_SCRIPT_BODY }];
}

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A merchant's colours as a stylesheet of their own (no inline style under our CSP), named by the colour: as immutable as our assets. */
export function brandStylesheetPath(brandColour: string): string {
  return `/assets/brand.${brandColour.slice(1)}.css`;
}
const BRAND_STYLESHEET = /^brand\.([0-9a-f]{6})\.css$/;

const brandStylesheetOf = (brandColour: string) => brandStylesheet(brandPalette(brandColour));

/** The `integrity` attribute of a merchant's brand stylesheet: the generator's output is the same for the same colour. */
export function brandStylesheetIntegrity(brandColour: string): string {
  return sri384(brandStylesheetOf(brandColour));
}

/**
 * GET /assets/:name. A hashed name is cached for a year (immutable); the plain name (checkout.css)
 * still answers, for a page an older version rendered during a rollout, but must be revalidated.
 */
export function serveAsset(c: Context, name: string): Response | Promise<Response> {
  const brand = BRAND_STYLESHEET.exec(name);
  if (brand) {
    c.header('Content-Type', CSS);
    c.header('Cache-Control', IMMUTABLE);
    return c.body(brandStylesheetOf(`#${brand[1]}`));
  }
  const path = `/assets/${name}`;
  const hashed = BY_PATH.get(path);
  const asset = hashed ?? ASSETS.get(name);
  if (!asset) return c.notFound();
  const encoding = acceptedEncoding(c.req.header('Accept-Encoding'));
  c.header('Content-Type', asset.type);
  c.header('Cache-Control', hashed ? IMMUTABLE : 'no-cache');
  c.header('Vary', 'Accept-Encoding');
  if (encoding) c.header('Content-Encoding', encoding);
  return c.body(new Uint8Array(asset.bodies[encoding ?? 'identity']));
}
