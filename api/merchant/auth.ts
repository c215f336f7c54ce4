import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { presentedBearerToken } from '../../core/bearer-token.js';
import type { Environment } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { API_KEY_SCOPE_MEANING, authenticateApiKey, type ApiKeyScope } from '../../core/merchants/api-keys.js';
import { ApiError } from '../../application/errors.js';
import type { RouteDeclaration } from '../route-declaration.js';
import { LIST_EVENTS, STREAM_EVENTS } from './event-paths.js';
import { GET_ORDER, LIST_ORDERS } from './order-paths.js';

/** Who called, once `merchantAuth` has checked the key: the merchant, and the key (its id, name and scope). */
export interface AuthenticatedMerchant {
  platformUuid: string;
  environment: Environment;
  keyId: string;
  keyName: string;
  scope: ApiKeyScope;
}

declare module 'hono' {
  interface ContextVariableMap {
    merchant: AuthenticatedMerchant;
  }
}

export const MERCHANT_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="merchant"' };

/**
 * What a `read` key may call: orders and events, read. Every other route of /v2/merchant needs a
 * `full` key, and a `carts` key calls none of them (it creates carts, api/carts/cart-caller.ts). The
 * one table of scopes: docs/api.md quotes it.
 */
export const READ_SCOPE_ROUTES: readonly RouteDeclaration[] = [LIST_ORDERS, GET_ORDER, LIST_EVENTS, STREAM_EVENTS];

const routePattern = (route: RouteDeclaration) => new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}/?$`);
const READ_PATTERNS = READ_SCOPE_ROUTES.map((route) => ({ method: route.method.toUpperCase(), pattern: routePattern(route) }));

/** The scope a request needs: `read` for the routes above (a `full` key may call them too), `full` for everything else. */
export function scopeNeeded(method: string, path: string): 'read' | 'full' {
  const asked = method === 'HEAD' ? 'GET' : method;
  return READ_PATTERNS.some((r) => r.method === asked && r.pattern.test(path)) ? 'read' : 'full';
}

const allows = (scope: ApiKeyScope, needed: 'read' | 'full') => scope === 'full' || (scope === 'read' && needed === 'read');

/** 403 in the envelope, naming the key's scope and the one the request needs. */
export function scopeRefusal(scope: ApiKeyScope, needed: ApiKeyScope | 'read or full' | 'full or carts', what: string): ApiError {
  return new ApiError('FORBIDDEN', `This API key's scope is ${scope} (${API_KEY_SCOPE_MEANING[scope]}); ${what} needs a key of scope ${needed}.`, [
    { path: 'Authorization', message: `is a key of scope ${scope}; this request needs scope ${needed}` },
  ]);
}

function refuseScope(c: Context, scope: ApiKeyScope): ApiError {
  const needed = scopeNeeded(c.req.method, c.req.path);
  return scopeRefusal(scope, needed === 'read' ? 'read or full' : 'full', `${c.req.method} ${c.req.path}`);
}

/**
 * `Authorization: Bearer <apiKey>`: the active merchant of this environment whose active key it is,
 * set as `merchant` on the context, then the key's scope against the request (the one place scopes
 * are enforced). A missing, malformed, unknown, revoked or rotated-out key, a key of the other
 * environment or of a deactivated merchant: 401, all alike. A key whose scope does not cover the
 * request: 403 FORBIDDEN naming both scopes.
 */
export function merchantAuth(deps: { db: Db; environment: Environment }) {
  return createMiddleware(async (c, next) => {
    const merchant = await authenticateApiKey(deps.db, presentedBearerToken(c.req.header('authorization')), deps.environment);
    if (!merchant) {
      throw new ApiError('UNAUTHORIZED', `The merchant API needs Authorization: Bearer <your ${deps.environment} API key>.`, [], MERCHANT_CHALLENGE);
    }
    if (!allows(merchant.scope, scopeNeeded(c.req.method, c.req.path))) throw refuseScope(c, merchant.scope);
    c.set('merchant', merchant);
    await next();
  });
}
