import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { cors } from 'hono/cors';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { keyedHash, type Keyring } from '../../core/crypto.js';
import { signedTokens } from '../../core/signed-token.js';
import { createEncryptionCodec, payloadFromJson, payloadToJson } from '../../core/temporal/codec.js';
import { ApiError } from '../../application/errors.js';
import { readValidJson } from '../json-body.js';
import { bootstrapOperatorToken, operatorAuth } from '../operator/auth.js';
import { findTokenOperator } from '../../core/people/operator-tokens.js';
import { operatorAttempts } from '../../core/operator-attempts.js';

/** The cookie a browser (the Temporal UI) may present instead of the bearer token. */
export const OPERATOR_COOKIE = 'checkout_operator';
const COOKIE_MAX_AGE_SECONDS = 8 * 3600;

/**
 * The cookie holds `<expiry in ms>.<HMAC of it>`, never the operator token: a cookie read off a disk
 * or a proxy log is worth eight hours of decoding, not the whole operator API. The HMAC key is derived
 * from the data key and the operator token, so changing OPERATOR_TOKEN (after a leak, say) ends every
 * session issued under the old one.
 */
const codecSessions = (keyring: Keyring, operatorToken: string) =>
  signedTokens(Buffer.from(keyedHash(keyring.deriveKey('codec-session/v1'), operatorToken), 'hex'), COOKIE_MAX_AGE_SECONDS * 1000);

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }).loose()).max(10_000),
});

/**
 * Temporal's remote codec protocol for operators: the Temporal UI (`--ui-codec-endpoint`, or
 * TEMPORAL_CODEC_ENDPOINT for the standalone UI) and the CLI (`--codec-endpoint`, `--codec-auth`)
 * POST `{"payloads":[…]}` to /codec/decode to show histories in clear, and to /codec/encode to send
 * input. Operators only: the bearer token, or the session cookie POST /codec/session trades it for.
 */
export function codecRoutes(deps: { config: Config; db: Db }) {
  const codec = createEncryptionCodec(deps.config.keyring);
  const app = new Hono();
  app.use(
    cors({
      origin: deps.config.temporalUiOrigins,
      allowMethods: ['POST', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
      credentials: true,
      maxAge: 600,
    }),
  );
  // Without the bootstrap token (unset, or switched off) no cookie is valid (operatorAuth).
  const sessions = codecSessions(deps.config.keyring, deps.config.operatorToken ?? '');
  app.use(
    operatorAuth(bootstrapOperatorToken(deps.config), {
      cookie: { name: OPERATOR_COOKIE, valid: (value) => sessions.verify(value) !== undefined },
      attempts: operatorAttempts(deps.config, deps.db),
      personalTokens: (token) => findTokenOperator(deps.db, token),
    }),
  );

  const parse = async (c: Context) => (await readValidJson(c, payloadsBody)).payloads.map(payloadFromJson);

  app.post('/encode', async (c) => c.json({ payloads: (await codec.encode(await parse(c))).map(payloadToJson) }));
  app.post('/decode', async (c) => {
    const payloads = await parse(c);
    const decoded = await codec.decode(payloads).catch((err: unknown) => {
      throw new ApiError('VALIDATION_ERROR', 'A payload does not decrypt with any key of the keyring.', [
        { path: 'payloads', message: err instanceof Error ? err.message : String(err) },
      ]);
    });
    return c.json({ payloads: decoded.map(payloadToJson) });
  });
  /**
   * Trades the bootstrap token for an HttpOnly session cookie, so the Temporal UI's requests carry it
   * (cross-origin credentials). Not a personal token: the cookie names no one and would outlive the
   * token's revocation; with one, decode on the dashboard (/dashboard/codec) or send it as the bearer.
   */
  app.post('/session', (c) => {
    if (c.get('operatorActor')) {
      throw new ApiError(
        'FORBIDDEN',
        'A personal operator token is not traded for a codec cookie: send it as Authorization: Bearer on /codec/decode, or use the dashboard’s Temporal UI.',
      );
    }
    setCookie(c, OPERATOR_COOKIE, sessions.issue([]), {
      httpOnly: true,
      secure: true,
      sameSite: 'None',
      path: '/codec',
      maxAge: COOKIE_MAX_AGE_SECONDS,
    });
    return c.body(null, 204);
  });
  return app;
}
