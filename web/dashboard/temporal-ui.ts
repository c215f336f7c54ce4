import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { createEncryptionCodec, payloadFromJson, payloadToJson } from '../../core/temporal/codec.js';
import type { Keyring } from '../../core/crypto.js';
import type { DashboardEnv } from './env.js';
import { SESSION_COOKIE } from './session.js';

/** Where the UI is served; the UI server runs with this public path (scripts/temporal-server.ts, docker-compose.yml). */
export const TEMPORAL_UI_PATH = '/dashboard/temporal';
/** The codec endpoint the UI is given: a path, so its fetches are same-origin and carry the dashboard's session cookie. */
export const DASHBOARD_CODEC_PATH = '/dashboard/codec';

const MAX_CODEC_BODY_BYTES = 4 * 1024 * 1024;
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }).loose()).max(10_000),
});

/**
 * Temporal's remote codec protocol on the dashboard's origin, for the Temporal UI served below. The
 * UI's fetch to a same-origin endpoint sends cookies by default (`credentials: 'same-origin'`), so the
 * operator's dashboard session (HttpOnly, SameSite=Strict, eight hours, bound to OPERATOR_TOKEN) is
 * the credential: no cookie of its own, no UI setting. Mounted behind requireOperator.
 */
export function dashboardCodecRoutes(deps: { keyring: Keyring }) {
  const codec = createEncryptionCodec(deps.keyring);
  const app = new Hono<DashboardEnv>();
  const parse = (body: string) => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return undefined;
    }
    const parsed = payloadsBody.safeParse(json);
    return parsed.success ? parsed.data.payloads.map(payloadFromJson) : undefined;
  };
  for (const op of ['encode', 'decode'] as const) {
    app.post(`/${op}`, async (c) => {
      const body = await c.req.text();
      const payloads = body.length <= MAX_CODEC_BODY_BYTES ? parse(body) : undefined;
      if (!payloads) return c.json({ error: 'The body must be {"payloads":[…]} with base64 metadata and data.' }, 400);
      try {
        return c.json({ payloads: (await codec[op](payloads)).map(payloadToJson) });
      } catch {
        return c.json({ error: 'A payload does not decrypt with any key of the keyring.' }, 400);
      }
    });
  }
  return app;
}

/** Hop-by-hop and body-framing headers that do not survive the proxy (fetch has already decoded the body). */
const DROPPED = ['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'host'];

/**
 * The Temporal UI server (TEMPORAL_UI_UPSTREAM), served under /dashboard/temporal to signed-in
 * operators only: the same origin as the dashboard and its codec. The dashboard's own session
 * cookie is not passed on; the UI's own cookies (its CSRF token) are kept to its path.
 */
export function temporalUiProxy(deps: { upstream: string }) {
  const app = new Hono<DashboardEnv>();
  app.all('*', async (c) => {
    const incoming = new URL(c.req.url);
    const headers = new Headers(c.req.raw.headers);
    for (const name of DROPPED) headers.delete(name);
    const cookies = (headers.get('cookie') ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part && !part.startsWith(`${SESSION_COOKIE}=`));
    if (cookies.length) headers.set('cookie', cookies.join('; '));
    else headers.delete('cookie');
    const hasBody = !['GET', 'HEAD'].includes(c.req.method);
    const upstream = await fetch(`${deps.upstream}${incoming.pathname}${incoming.search}`, {
      method: c.req.method,
      headers,
      redirect: 'manual',
      ...(hasBody ? { body: await c.req.arrayBuffer() } : {}),
    });
    const answer = new Headers();
    upstream.headers.forEach((value, name) => {
      if (!DROPPED.includes(name) && name !== 'set-cookie') answer.set(name, value);
    });
    for (const cookie of upstream.headers.getSetCookie()) answer.append('set-cookie', cookie.replace(/;\s*Path=[^;]*/i, `; Path=${TEMPORAL_UI_PATH}`));
    c.set('ownHeaders', true);
    // The page's HTML is read to allow its own inline scripts by hash; every other answer streams through.
    const page = (answer.get('content-type') ?? '').startsWith('text/html') ? await upstream.text() : undefined;
    for (const [name, value] of Object.entries(temporalUiHeaders(page === undefined ? [] : inlineScriptsOf(page)))) answer.set(name, value);
    return new Response(page ?? upstream.body, { status: upstream.status, headers: answer });
  });
  return app;
}

/** The text of each `<script>` without a `src` in an HTML page: the UI's bootstrap (SvelteKit's start script). */
export function inlineScriptsOf(page: string): string[] {
  return [...page.matchAll(/<script(?![^>]*\ssrc\s*=)[^>]*>([\s\S]*?)<\/script\s*>/gi)].map((m) => m[1]!);
}

/**
 * The headers of every answer of the Temporal UI, which runs on the card form's origin and shows data
 * anyone can put in a cart through the public create-cart (names, items, extra): a strict CSP in place
 * of the UI's own `X-Frame-Options: SAMEORIGIN` and no CSP. Scripts from this origin only, plus the
 * inline bootstrap the UI's HTML carries, allowed by its hash (computed from the upstream's page, which
 * is static: no request data in it), never eval; styles from this origin and inline (`'unsafe-inline'`
 * for styles only: the UI sets style attributes; no script runs from a style); data only from this
 * origin (the UI's API and the dashboard's codec); never framed, not even by the dashboard.
 */
export function temporalUiHeaders(inlineScripts: readonly string[]): Record<string, string> {
  const hashes = inlineScripts.map((script) => ` 'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`).join('');
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      `script-src 'self'${hashes}`,
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "media-src 'self'",
      "connect-src 'self'",
      "manifest-src 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "object-src 'none'",
    ].join('; '),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
