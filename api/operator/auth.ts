import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { TOKEN_OPERATOR, type AuditActor } from '../../core/audit/audit-log.js';
import { bearerTokenMatches, presentedBearerToken } from '../../core/bearer-token.js';
import type { Config } from '../../core/config.js';
import type { OperatorAttempts } from '../../core/operator-attempts.js';
import type { TokenOperator } from '../../core/people/operator-tokens.js';
import { ApiError } from '../../application/errors.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Who the operator request acts as, for the audit log: the bootstrap token, or the operator whose personal token it is. */
    operatorActor: AuditActor;
  }
}

/** A browser's stand-in for the bearer token: a cookie and how to check it. */
export interface OperatorCookie {
  name: string;
  valid(value: string): boolean;
}

/** OPERATOR_TOKEN while it still bootstraps (DASHBOARD_BOOTSTRAP_SIGN_IN); undefined once switched off, when only personal tokens open the operator API. */
export const bootstrapOperatorToken = (config: Pick<Config, 'operatorToken' | 'dashboardBootstrapSignIn'>) =>
  config.dashboardBootstrapSignIn ? config.operatorToken : undefined;

/** Who a request acts as on an operator route (set by operatorAuth); the bootstrap token when nothing else. */
export const operatorActor = (c: Context): AuditActor => c.get('operatorActor') ?? TOKEN_OPERATOR;

/**
 * `Authorization: Bearer <token>`: the bootstrap OPERATOR_TOKEN (undefined once switched off, and then
 * never matched), or with `personalTokens` an operator's personal token (core/people/operator-tokens.ts),
 * which acts as its operator. Without either the route stays shut. With `cookie`, a valid session cookie
 * is accepted instead (for a browser, e.g. the Temporal UI calling /codec). With `attempts`, wrong
 * tokens are counted per client address and an address past the limit is refused (429) before its token
 * is compared (core/operator-attempts.ts). `setting` names the token in the refusal and the realm (the
 * API's /metrics takes METRICS_TOKEN the same way).
 */
export function operatorAuth(
  token: string | undefined,
  options: {
    cookie?: OperatorCookie;
    attempts?: OperatorAttempts;
    setting?: 'OPERATOR_TOKEN' | 'METRICS_TOKEN';
    personalTokens?: (token: string | undefined) => Promise<TokenOperator | undefined>;
  } = {},
) {
  const { attempts } = options;
  const setting = options.setting ?? 'OPERATOR_TOKEN';
  const realm = setting === 'OPERATOR_TOKEN' ? 'operator' : 'metrics';
  const expected = options.personalTokens ? `${setting} or your personal operator token` : setting;
  return createMiddleware(async (c, next) => {
    const refused = await attempts?.refusedFor(c);
    if (refused) {
      throw new ApiError(
        'RATE_LIMITED',
        `Too many wrong ${realm} tokens from this address: at most ${refused.limit.max} per ${refused.limit.windowSeconds} s. Retry after the delay in Retry-After.`,
        [],
        { 'Retry-After': String(refused.retryAfterSeconds) },
      );
    }
    const authorization = c.req.header('authorization');
    const cookie = options.cookie && getCookie(c, options.cookie.name);
    const cookieValid = token !== undefined && cookie !== undefined && options.cookie!.valid(cookie);
    if (bearerTokenMatches(authorization, token) || cookieValid) return next();
    const operator = await options.personalTokens?.(presentedBearerToken(authorization));
    if (operator) {
      c.set('operatorActor', { type: 'user', id: operator.userId, email: operator.email });
      return next();
    }
    await attempts?.failed(c);
    throw new ApiError('UNAUTHORIZED', `This ${realm} endpoint needs Authorization: Bearer <${expected}>.`, [], {
      'WWW-Authenticate': `Bearer realm="${realm}"`,
    });
  });
}
