import { z } from 'zod';
import { ERROR_STATUS, errorBodySchema, type ErrorBody, type ErrorCode } from '../../application/errors.js';

/**
 * The parts of an operation's description that many routes share: the error envelope, documented by
 * status with an example per code, the merchant API's common errors, and the headers every answer has.
 * Each route's own errors are declared beside it (api/carts/cart-paths.ts, api/merchant/*-paths.ts).
 */

/** The security scheme of the merchant's API key; api/docs/openapi.ts registers it under this name. */
export const MERCHANT_API_KEY_SCHEME = 'merchantApiKey';
/** Everything under /v2/merchant/: the API key, required. */
export const MERCHANT_SECURITY: Array<Record<string, string[]>> = [{ [MERCHANT_API_KEY_SCHEME]: [] }];

export const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

export const requestIdHeader = {
  'X-Request-Id': { description: 'Identifies this request in our logs; quote it to support.', schema: { type: 'string' as const } },
};
const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const, minimum: 1 } } };

export const example = (code: ErrorCode, message: string, errors: ErrorBody['errors'] = []): ErrorBody => ({
  code,
  message,
  errors,
  requestId: 'req_3f2c9b7e0d3a4c1b8e6f5a4d3c2b1a09',
});

/** A KWD amount Stripe cannot take (three-decimal amounts end in 0), refused at `path`. */
export const AMOUNT_NOT_REPRESENTABLE_EXAMPLE = (path: string) =>
  example(
    'AMOUNT_NOT_REPRESENTABLE',
    "The payment processor cannot charge 1005 (minor units of KWD) exactly: KWD amounts must be multiples of 10. Use 1000 or 1010 (KWD 1.000 or KWD 1.010). GET /v2/public/api/currencies gives each currency's multipleOf.",
    [{ path, message: 'must be a multiple of 10 (minor units of KWD) for the payment processor to charge it exactly' }],
  );

export interface DocumentedError {
  description: string;
  examples: ErrorBody[];
  retryAfter?: boolean;
  allow?: boolean;
  challenge?: boolean;
}

export const MERCHANT_UNAUTHORIZED: DocumentedError = {
  description:
    'UNAUTHORIZED: no API key, or not an active key of this environment (unknown, revoked, rotated out, of the other environment or of a deactivated merchant), all alike.',
  examples: [example('UNAUTHORIZED', 'The merchant API needs Authorization: Bearer <your sandbox API key>.')],
  challenge: true,
};
export const MERCHANT_INTERNAL: DocumentedError = {
  description: 'INTERNAL_ERROR: our fault; nothing about it is disclosed. Retry later; quote the requestId to support.',
  examples: [example('INTERNAL_ERROR', 'Something went wrong on our side. Retry later; if it persists, contact support with the requestId.')],
};
export const MERCHANT_UNAVAILABLE: DocumentedError = {
  description: 'SERVICE_UNAVAILABLE: a service we depend on is down; nothing was changed. Retry after Retry-After seconds.',
  examples: [example('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.')],
  retryAfter: true,
};
export const methodNotAllowedError = (allowed: string): DocumentedError => ({
  description: `METHOD_NOT_ALLOWED: only ${allowed}; see the Allow header.`,
  examples: [example('METHOD_NOT_ALLOWED', `DELETE is not supported here; use ${allowed}.`)],
  allow: true,
});

export const bodyErrors = (bytes: number, fields: string, example_: ErrorBody['errors'][number]): DocumentedError[] => [
  {
    description: `INVALID_JSON: the body is not JSON. VALIDATION_ERROR: ${fields}`,
    examples: [
      example('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.'),
      example('VALIDATION_ERROR', 'The request has 1 invalid field.', [example_]),
    ],
  },
  { description: `PAYLOAD_TOO_LARGE: the body exceeds ${bytes} bytes.`, examples: [example('PAYLOAD_TOO_LARGE', `The body must be at most ${bytes} bytes.`)] },
  {
    description: 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
    examples: [example('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.')],
  },
];
/** Errors of one status as one response (errorResponses keeps one entry per status): descriptions and examples side by side. */
export const together = (...entries: DocumentedError[]): DocumentedError => ({
  description: entries.map((e) => e.description).join(' '),
  examples: entries.flatMap((e) => e.examples),
  ...(entries.some((e) => e.retryAfter) ? { retryAfter: true } : {}),
});

export function errorResponses(entries: DocumentedError[]) {
  const responses: Record<string, object> = {};
  for (const entry of entries) {
    const status = ERROR_STATUS[entry.examples[0]!.code];
    responses[String(status)] = {
      description: entry.description,
      headers: {
        ...requestIdHeader,
        ...(entry.retryAfter ? retryAfterHeader : {}),
        ...(entry.allow ? { Allow: { schema: { type: 'string' }, description: 'The supported methods' } } : {}),
        ...(entry.challenge ? { 'WWW-Authenticate': { schema: { type: 'string', enum: ['Bearer realm="merchant"'] }, description: 'The scheme to use' } } : {}),
      },
      content: {
        'application/json': {
          schema: errorBodySchema,
          examples: Object.fromEntries(
            entry.examples.map((e, i) => [i === entry.examples.findIndex((x) => x.code === e.code) ? e.code : `${e.code}_${i}`, { value: e }]),
          ),
        },
      },
    };
  }
  return responses;
}

/** What any merchant API route may answer, whatever it does. */
export const MERCHANT_COMMON_ERRORS = [MERCHANT_UNAUTHORIZED, MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE];
