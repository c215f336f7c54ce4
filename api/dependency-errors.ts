import { isGrpcServiceError, ServiceError } from '@temporalio/client';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);
// PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown).
const PG_UNAVAILABLE = /^(08|57P)/;
// gRPC answers that mean "Temporal cannot take this now", as opposed to "this request is wrong"
// (INVALID_ARGUMENT, ALREADY_EXISTS… are our bugs and must surface as such).
// Numeric gRPC codes (CANCELLED 1, DEADLINE_EXCEEDED 4, RESOURCE_EXHAUSTED 8, UNAVAILABLE 14): grpc-js is
// only a transitive dependency of the SDK, so we do not import its enum.
const GRPC_UNAVAILABLE = new Set<number>([1, 4, 8, 14]);

/** True when the error says Temporal or PostgreSQL could not be reached, not that we did something wrong. */
export function isDependencyUnavailable(err: unknown): boolean {
  if (isGrpcServiceError(err)) return GRPC_UNAVAILABLE.has(err.code);
  if (err instanceof ServiceError && !isGrpcServiceError(err.cause)) return true;
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_UNAVAILABLE.test(code))) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isDependencyUnavailable(cause);
}
