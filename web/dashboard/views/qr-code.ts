import { html, raw } from 'hono/html';
import QRCode from 'qrcode';
import type { Html } from './layout.js';

/**
 * A URL's QR code as inline SVG (no image request, nothing for the CSP to allow), named for screen
 * readers by what it opens. The SVG is the qrcode package's own markup; only its opening tag gains
 * the role and the name, escaped by hono/html.
 */
export async function qrCode(url: string): Promise<Html> {
  const svg = await QRCode.toString(url, { type: 'svg', margin: 1 });
  const opening = await html`<svg role="img" aria-label="QR code for ${url}" focusable="false" `;
  // A function, not a replacement string: a `$` in the URL must not be read as a pattern.
  return html`<span class="qr">${raw(svg.replace(/^<svg /, () => opening))}</span>`;
}
