/**
 * Why a webhook attempt failed, as it is stored (webhook_attempts.error_class) and shown (the Order
 * API, the dashboard, a test event's answer): one of a fixed set of categories, in our own words.
 * Never what our resolver or a socket said: `getaddrinfo ENOTFOUND db.internal` or `connect
 * ECONNREFUSED 10.0.0.5:5432` would describe our network to whoever registers a URL. The raw error
 * goes to operators' logs only (the attempt's log line, `errorDetail`). Constants only: safe anywhere.
 */

export const DELIVERY_ERRORS = ['dns', 'blocked_address', 'connection_refused', 'timeout', 'tls', 'network', 'cancelled', 'http_status'] as const;

export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

/** Why an attempt got no HTTP answer: every category but `http_status`. */
export type NoAnswerError = Exclude<DeliveryError, 'http_status'>;

/** Each category in a merchant's words, the same whatever happened underneath. */
export const DELIVERY_ERROR_WORDS: Record<DeliveryError, string> = {
  dns: "the endpoint's host name did not resolve",
  blocked_address: "the endpoint's host is an address webhooks may not reach",
  connection_refused: 'the endpoint refused the connection',
  timeout: 'no complete answer within the time limit',
  tls: 'the TLS connection failed (certificate or protocol)',
  network: 'the connection failed before an answer',
  cancelled: 'the attempt was stopped before an answer',
  http_status: 'the endpoint answered with a status other than 2xx',
};

export const isDeliveryError = (value: string): value is DeliveryError => (DELIVERY_ERRORS as readonly string[]).includes(value);
