import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';

/** The codes of docs/decisions/error-model.md, with the HTTP status each always carries. */
export const ERROR_STATUS = {
  INVALID_JSON: 400,
  INVALID_SIGNATURE: 400,
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  ORDER_NOT_PAID: 409,
  PAYMENT_IN_PROGRESS: 409,
  SESSION_ENDED: 409,
  SESSION_NOT_EXPIRABLE: 409,
  ENDPOINT_LIMIT_REACHED: 409,
  LAST_ENDPOINT: 409,
  ENDPOINT_DISABLED_BY_OPERATOR: 409,
  ORDER_NOT_AUTHORIZED: 409,
  CAPTURE_ALREADY_DECIDED: 409,
  SESSION_NOT_RETRYABLE: 409,
  ALREADY_RETRIED: 409,
  RETRY_LIMIT_REACHED: 409,
  DISPUTE_NOT_OPEN: 409,
  SESSION_IN_BROWSER: 409,
  NOTHING_TO_ADVANCE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNKNOWN_PLATFORM: 422,
  AMOUNT_EXCEEDS_REFUNDABLE: 422,
  AMOUNT_EXCEEDS_AUTHORIZED: 422,
  CURRENCY_NOT_SUPPORTED: 422,
  AMOUNT_NOT_REPRESENTABLE: 422,
  EVENT_NOT_SUBSCRIBED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const errorBodySchema = z
  .strictObject({
    code: z
      .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
      .meta({ description: 'Stable, machine-readable; branch on this, not on the message' }),
    message: z.string().meta({ description: 'What went wrong and what to do about it, for a developer' }),
    errors: z
      .array(
        z.strictObject({
          path: z.string().meta({ description: 'JSON path of the offending field in the request', example: 'cartObject.cart.items[0].price' }),
          message: z.string().meta({ example: 'must be an integer amount in minor units (e.g. cents)' }),
        }),
      )
      .meta({ description: 'One entry per bad field; empty when the error is not about a field' }),
    requestId: z.string().meta({ description: 'Also in the X-Request-Id header; quote it to support', example: 'req_3f2c9b7e0d3a4c1b8e6f5a4d3c2b1a09' }),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.output<typeof errorBodySchema>;
export type FieldError = ErrorBody['errors'][number];

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

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * `cartObject.cart.items[2].zeroPay` from zod's `['cartObject','cart','items',2,'zeroPay']`; a key that
 * is not an identifier (an `extra` key such as "order.ref") is quoted: `extra["order.ref"]`.
 */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const name = String(key);
    if (!IDENTIFIER.test(name)) return `${acc}[${JSON.stringify(name)}]`;
    return acc === '' ? name : `${acc}.${name}`;
  }, '');
}

/**
 * A message a developer can act on. Zod's defaults ("Invalid input: expected string, received
 * undefined") are rephrased; the messages our schemas set are kept. Needs `reportInput: true` at parse
 * time to tell a missing field from a mistyped one.
 */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined) return 'is required';
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input'))
    return `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
  if (issue.code === 'invalid_key') return `key ${issue.issues[0]?.message ?? 'is invalid'}`;
  return issue.message;
}

/** One entry per bad field (its first problem), plus any `extra` errors found outside zod. */
export function validationError(error: z.ZodError | undefined, prefix: ReadonlyArray<PropertyKey> = [], extra: FieldError[] = []): ApiError {
  const all = (error?.issues ?? []).flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: jsonPath([...prefix, ...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: jsonPath([...prefix, ...issue.path]) || '(body)', message: describeIssue(issue) }];
  });
  const errors = [...extra, ...all].filter((e, i, list) => list.findIndex((other) => other.path === e.path) === i);
  return new ApiError('VALIDATION_ERROR', `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
}

/** 503 with Retry-After: a dependency we cannot do without is down, and nothing was done. */
export function serviceUnavailable(retryAfterSeconds = 5): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.', [], {
    'Retry-After': String(retryAfterSeconds),
  });
}

/**
 * 503 with Retry-After: the API is saturated and serves the sessions already open first; this new one
 * was not created (api/admission/, docs/decisions/admission.md).
 */
export function overloaded(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'OVERLOADED',
    `We are at capacity and are serving checkouts already open first. Nothing was created; retry after ${retryAfterSeconds} s (the Retry-After header).`,
    [],
    { 'Retry-After': String(retryAfterSeconds) },
  );
}
