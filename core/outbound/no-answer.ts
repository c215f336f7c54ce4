import type { NoAnswerError } from './delivery-errors.js';

/**
 * Why an outbound request got no HTTP answer, as one of our categories (./delivery-errors.ts), from
 * the error Node gave: webhook deliveries (./http-post.ts) and the domain verification fetch
 * (core/merchants/domain-verification.ts) tell a merchant this and nothing of the error itself.
 */

/** OpenSSL's certificate verification codes that do not say CERT or CRL (Node gives these as `code`). */
const TLS_VERIFY_CODES = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'INVALID_CA', 'PATH_LENGTH_EXCEEDED', 'INVALID_PURPOSE', 'HOSTNAME_MISMATCH']);

export function classifyNoAnswer(err: NodeJS.ErrnoException): NoAnswerError {
  const code = err.code ?? '';
  // Refused or not resolved: one category, or a merchant could probe which of our names resolve.
  if (code === 'EBLOCKEDADDRESS') return 'unreachable_host';
  if (code === 'ETIMEDOUT' || err.name === 'TimeoutError') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (err.syscall === 'getaddrinfo' || code === 'ENOTFOUND' || code.startsWith('EAI_')) return 'unreachable_host';
  if (err.name === 'AbortError') return 'cancelled';
  if (/^ERR_(TLS|SSL)_/.test(code) || code.includes('CERT') || code.includes('CRL') || TLS_VERIFY_CODES.has(code) || code === 'EPROTO') return 'tls';
  return 'network';
}
