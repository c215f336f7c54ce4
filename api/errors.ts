import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/** The codes of DESIGN.md §4, with the HTTP status each always carries. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNKNOWN_PLATFORM: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  path: string;
  message: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  errors: FieldError[];
  requestId: string;
}

/** A failure we mean to report; anything else thrown becomes INTERNAL_ERROR. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `cartObject.cart.items[2].zeroPay` from zod's `['cartObject','cart','items',2,'zeroPay']`. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const name = String(key);
    return acc === '' ? name : `${acc}.${name}`;
  }, '');
}

export function validationError(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): ApiError {
  const errors = error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: jsonPath([...prefix, ...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: jsonPath([...prefix, ...issue.path]) || '(body)', message: issue.message }];
  });
  return new ApiError('VALIDATION_ERROR', `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
}

export function errorResponse(c: Context, error: ApiError): Response {
  const body: ErrorBody = { code: error.code, message: error.message, errors: error.errors, requestId: c.get('requestId') ?? '' };
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(body, ERROR_STATUS[error.code]);
}

export const onError: ErrorHandler = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  c.get('logger')?.error({ err, requestId: c.get('requestId') }, 'unhandled error');
  return errorResponse(c, new ApiError('INTERNAL_ERROR', 'Something went wrong on our side. Retry later; if it persists, contact support with the requestId.'));
};

export const onNotFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}. See /docs for the API reference.`));
