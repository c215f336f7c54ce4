import type { Context, ErrorHandler, Handler, NotFoundHandler } from 'hono';
import { ApiError, ERROR_STATUS, serviceUnavailable, type ErrorBody } from '../application/errors.js';
import { isDependencyUnavailable } from './dependency-errors.js';

export function errorResponse(c: Context, error: ApiError): Response {
  const body: ErrorBody = { code: error.code, message: error.message, errors: error.errors, requestId: c.get('requestId') ?? '' };
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(body, ERROR_STATUS[error.code]);
}

/** Every route's errors end here: ours as they are, an unreachable Temporal or PostgreSQL as 503, anything else as 500. */
export const onError: ErrorHandler = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (isDependencyUnavailable(err)) return errorResponse(c, serviceUnavailable());
  c.get('logger')?.error({ err, requestId: c.get('requestId') }, 'unhandled error');
  return errorResponse(c, new ApiError('INTERNAL_ERROR', 'Something went wrong on our side. Retry later; if it persists, contact support with the requestId.'));
};

/** For a known path: the methods it does have, in `Allow`, rather than a misleading 404. */
export function methodNotAllowed(allowed: string[]): Handler {
  return (c) =>
    errorResponse(
      c,
      new ApiError('METHOD_NOT_ALLOWED', `${c.req.method} is not supported here; use ${allowed.join(' or ')}.`, [], { Allow: allowed.join(', ') }),
    );
}

export const onNotFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}. See /docs for the API reference.`));
