import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { createMiddleware } from 'hono/factory';

export type Encoding = 'br' | 'gzip';

/** Below this a response fits in one packet anyway; compressing it costs more than it saves. */
const MIN_BYTES = 1024;
const COMPRESSIBLE = /^(text\/|application\/(json|javascript|problem\+json))/;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * What the browser's Accept-Encoding allows: brotli when it may (a third smaller than gzip on our
 * pages), else gzip, else nothing. `q=0` refuses an encoding; `*` stands for any not named.
 */
export function acceptedEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined;
  const quality = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    quality.set(name, Number.isFinite(value) ? value : 0);
  }
  const allowed = (encoding: Encoding) => (quality.get(encoding) ?? quality.get('*') ?? 0) > 0;
  if (allowed('br')) return 'br';
  if (allowed('gzip')) return 'gzip';
  return undefined;
}

/**
 * Compresses the pages and fragments we render (brotli or gzip, as the browser asks). Node's zlib
 * rather than hono/compress, whose CompressionStream has no brotli. Brotli at quality 5: a checkout
 * page (about 6 KB) costs well under a millisecond and comes out within a few percent of quality 11.
 */
export function compressResponses() {
  return createMiddleware(async (c, next) => {
    await next();
    const res = c.res;
    if (c.req.method === 'HEAD' || !res.body || res.headers.has('Content-Encoding') || res.status === 204 || res.status === 304) return;
    if (!COMPRESSIBLE.test(res.headers.get('Content-Type') ?? '')) return;
    const vary = res.headers.get('Vary');
    c.header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = acceptedEncoding(c.req.header('Accept-Encoding'));
    if (!encoding) return;
    const body = Buffer.from(await res.arrayBuffer());
    if (body.length < MIN_BYTES) {
      c.res = new Response(body, res);
      return;
    }
    const compressed =
      encoding === 'br'
        ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : await gzipAsync(body);
    const headers = new Headers(res.headers);
    headers.set('Content-Encoding', encoding);
    headers.delete('Content-Length');
    c.res = undefined;
    c.res = new Response(new Uint8Array(compressed), { status: res.status, statusText: res.statusText, headers });
  });
}
