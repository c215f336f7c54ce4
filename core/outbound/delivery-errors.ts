/**
 * Why a webhook attempt failed, as it is stored (webhook_attempts.error_class) and shown (the Order
 * API, the dashboard, a test event's answer): one of a fixed set of categories, in our own words.
 * Never what our resolver or a socket said: `getaddrinfo ENOTFOUND db.internal` or `connect
 * ECONNREFUSED 10.0.0.5:5432` would describe our network to whoever registers a URL. The raw error
 * goes to operators' logs only (the attempt's log line, `errorDetail`). One category, `unreachable_host`,
 * for a name that does not resolve and one that resolves where webhooks may not go: two would say
 * whether one of our internal names exists. Constants only: safe anywhere.
 */

export const DELIVERY_ERRORS = ['unreachable_host', 'connection_refused', 'timeout', 'tls', 'network', 'cancelled', 'http_status'] as const;

export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

/** Why an attempt got no HTTP answer: every category but `http_status`. */
export type NoAnswerError = Exclude<DeliveryError, 'http_status'>;

/** Each category in a merchant's words, the same whatever happened underneath. */
export const DELIVERY_ERROR_WORDS: Record<DeliveryError, string> = {
  unreachable_host: "the endpoint's host did not resolve to an address webhooks may reach",
  connection_refused: 'the endpoint refused the connection',
  timeout: 'no complete answer within the time limit',
  tls: 'the TLS connection failed (certificate or protocol)',
  network: 'the connection failed before an answer',
  cancelled: 'the attempt was stopped before an answer',
  http_status: 'the endpoint answered with a status other than 2xx',
};

/**
 * The categories stored before issue 48 (security review, point 8): a host that did not resolve (`dns`) and one that
 * resolved to an address we refuse (`blocked_address`) were told apart, which told whoever registers
 * a URL which of our internal names resolve. Both read as `unreachable_host` now.
 */
export const LEGACY_DELIVERY_ERRORS: Readonly<Record<string, DeliveryError>> = { dns: 'unreachable_host', blocked_address: 'unreachable_host' };

export const isDeliveryError = (value: string): value is DeliveryError => (DELIVERY_ERRORS as readonly string[]).includes(value);
