import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { DeliveryEndpoint } from '../merchants/merchant-store.js';
import { EndpointDisabledByOperatorError } from './endpoints.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../rate-limits.js';

/**
 * What a merchant sends by hand, test events and replays, from the dashboard or the merchant API: each
 * makes us POST signed JSON to one of its endpoints at a moment it chooses. One limit for all of them,
 * per merchant and target origin (manualSendOrigin): WEBHOOK_MANUAL_SENDS_PER_HOUR, so neither the
 * dashboard, the API nor a URL added again as a new endpoint (a new id) is a way to aim our requests
 * at a host at will. Nothing goes to an endpoint an operator disabled (that decision binds until an
 * operator enables it again). Operators' own replays and recoveries are not counted.
 */

const HOUR_SECONDS = 3600;

/** Refused: the merchant had WEBHOOK_MANUAL_SENDS_PER_HOUR manual sends to this origin in this hour already. */
export class ManualSendLimitError extends Error {
  override name = 'ManualSendLimitError';
  constructor(
    /** The endpoint whose send was refused, and the origin its count is kept for. */
    readonly endpointId: string,
    readonly origin: string,
    readonly max: number,
    /** Seconds until the hour's window ends, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(`at most ${max} test events and replays an hour to ${origin} (webhook endpoint ${endpointId})`);
  }
}

/**
 * Where a manual send lands, as counted: the URL's scheme, host and port as the WHATWG URL parser
 * gives them (lower-case scheme and host, IDN as punycode, the default port left out), and the host
 * without a trailing dot, which names the same host. Neither the path, the query, the case nor a new
 * endpoint id makes the same receiver another count.
 */
export function manualSendOrigin(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/\.$/, '');
  return `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ''}`;
}

const BUCKET = 'webhook-manual-sends';
const limitOf = (platformUuid: string, origin: string, max: number): Limit => ({
  bucket: `${BUCKET}:${platformUuid}:${origin}`,
  max,
  windowSeconds: HOUR_SECONDS,
});

/**
 * Admits one manual send by `platformUuid` to each of `endpoints`, or none: those an operator disabled
 * (or deleted) are left out (EndpointDisabledByOperatorError when nothing else is left), and one over
 * its origin's hourly limit refuses the whole send (ManualSendLimitError), counting nothing. Two
 * endpoints at one origin count two sends there. Returns the endpoints to send to, and a way to give
 * the counts back when the send did not happen after all.
 */
export async function admitManualSend(
  deps: { config: Pick<Config, 'webhooks'>; db: Db; logger?: Logger },
  platformUuid: string,
  endpoints: readonly DeliveryEndpoint[],
): Promise<{ endpoints: DeliveryEndpoint[]; refund(): Promise<void> }> {
  const { config, db, logger } = deps;
  const bound = (e: DeliveryEndpoint) => e.status === 'disabled' && e.disabledByOperator;
  // A deleted endpoint is sent nothing (the delivery skips it): nothing to count either.
  const admitted = endpoints.filter((e) => !bound(e) && !e.deleted);
  const refusedBy = endpoints.find(bound);
  if (admitted.length === 0 && refusedBy) throw new EndpointDisabledByOperatorError(refusedBy.endpointId, 'send');
  const max = config.webhooks.manualSendsPerHour;
  const counted = admitted.map((e) => ({ endpoint: e, origin: manualSendOrigin(e.url) }));
  const hits = await countHitsAllOrNone(
    db,
    counted.map((c) => limitOf(platformUuid, c.origin, max)),
  );
  if (hits.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger?.warn({ err }, 'pruning ended rate-limit windows failed'));
  if (!hits.allowed) {
    const refused = counted.find((c) => limitOf(platformUuid, c.origin, max).bucket === hits.refusedBy.bucket)!;
    throw new ManualSendLimitError(refused.endpoint.endpointId, refused.origin, max, Math.max(1, hits.retryAfterSeconds));
  }
  return { endpoints: admitted, refund: () => hits.refund() };
}
