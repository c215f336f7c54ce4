import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Hono } from 'hono';
import type { BlankEnv, H } from 'hono/types';
import type { Config } from '../core/config.js';
import { methodNotAllowed } from './errors.js';

/** What an operation's description may quote of the deployment that serves it. */
export type DocumentSettings = Pick<Config, 'apiBaseUrl' | 'checkoutBaseUrl' | 'environment'>;

/** An OpenAPI operation, less the method and path its declaration holds. */
export type Operation = Omit<RouteConfig, 'method' | 'path'>;

/**
 * One API route, declared once: its method and full path, as OpenAPI spells it (`{cartId}`), and its
 * OpenAPI operation. `serve` takes the handler's method and path from it and api/docs/openapi.ts the
 * document's, so the route and its description cannot name different things.
 */
export interface RouteDeclaration<Path extends string = string> {
  method: RouteConfig['method'];
  path: Path;
  /** A function where the description quotes the deployment (create-cart's names its checkout URL). */
  operation: Operation | ((settings: DocumentSettings) => Operation);
}

/** Keeps the path's literal type, which `serve` turns into the handler's parameter names. */
export const declareRoute = <const Path extends string>(route: RouteDeclaration<Path>) => route;

/** The declaration as the registry takes it. */
export const operationOf = (route: RouteDeclaration, settings: DocumentSettings): RouteConfig => ({
  method: route.method,
  path: route.path,
  ...(typeof route.operation === 'function' ? route.operation(settings) : route.operation),
});

/** `/orders/{cartId}` as Hono spells it, `/orders/:cartId`, at the type level so `c.req.param('cartId')` is a string. */
type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P;
/** The part of a full path below the mount its routes module is served at. */
type Below<P extends string, Mount extends string> = P extends `${Mount}${infer Rest}` ? (Rest extends '' ? '/' : Rest) : never;

function localPath(mount: string, route: RouteDeclaration): string {
  // Thrown when the app is built: a route declared outside the module's mount would be served elsewhere than documented.
  if (!route.path.startsWith(mount)) throw new Error(`${route.method.toUpperCase()} ${route.path} is declared outside ${mount}`);
  return route.path.slice(mount.length).replace(/\{(\w+)\}/g, ':$1') || '/';
}

/** Serves `route` on `app`, which is mounted at `mount`, with the method and path the document gives it. */
export function serve<const Path extends string, const Mount extends string>(
  app: Hono,
  mount: Mount,
  route: RouteDeclaration<Path>,
  ...handlers: Array<H<BlankEnv, HonoPath<Below<Path, Mount>>>>
) {
  // Hono types a handler list of any length only for a list of paths.
  app.on(route.method.toUpperCase(), [localPath(mount, route)], ...(handlers as H[]));
}

/** 405 with an Allow header of the declared methods for any other method on their path (they share one). */
export function refuseOtherMethods(app: Hono, mount: string, ...routes: [RouteDeclaration, ...RouteDeclaration[]]) {
  const path = localPath(mount, routes[0]);
  if (routes.some((route) => localPath(mount, route) !== path)) throw new Error(`refuseOtherMethods takes the routes of one path, not ${path} and another`);
  app.all(path, methodNotAllowed(routes.map((route) => route.method.toUpperCase())));
}
