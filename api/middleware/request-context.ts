import { createMiddleware } from 'hono/factory';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/logger.js';

declare module 'hono' {
  interface ContextVariableMap {
    requestId: string;
    logger: Logger;
  }
}

const INCOMING_ID = /^[\w.-]{8,128}$/;

/** Gives every request an id (ours, or a well-formed one the caller sent) and a logger carrying it. */
export function requestContext(logger: Logger) {
  return createMiddleware(async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
    c.set('requestId', requestId);
    c.set('logger', logger.child({ requestId }));
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    await next();
    c.get('logger').info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
  });
}
