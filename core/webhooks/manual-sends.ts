import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { DeliveryEndpoint } from '../merchants/merchant-store.js';
import { EndpointDisabledByOperatorError } from '../merchants/webhook-endpoints.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../rate-limits.js';

/**
 * What a merchant sends by hand, test events and replays, from the dashboard or the merchant API: each
 * makes us POST signed JSON to one of its endpoints at a moment it chooses. One limit for all of them,
 * per endpoint: WEBHOOK_MANUAL_SENDS_PER_HOUR, so neither the dashboard nor the API is a way to aim our
 * requests at a URL at will. Nothing goes to an endpoint an operator disabled (that decision binds
 * until an operator enables it again). Operators' own replays and recoveries are not counted.
 */

const HOUR_SECONDS = 3600;

/** Refused: the endpoint had WEBHOOK_MANUAL_SENDS_PER_HOUR manual sends in this hour already. */
export class ManualSendLimitError extends Error {
  override name = 'ManualSendLimitError';
  constructor(
    readonly endpointId: string,
    readonly max: number,
    /** Seconds until the hour's window ends, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(`at most ${max} test events and replays an hour to webhook endpoint ${endpointId}`);
  }
}

const limitOf = (endpointId: string, max: number): Limit => ({ bucket: `webhook-manual-sends:${endpointId}`, max, windowSeconds: HOUR_SECONDS });

/**
 * Admits one manual send to each of `endpoints`, or none: those an operator disabled (or deleted) are
 * left out (EndpointDisabledByOperatorError when nothing else is left), and one over its hour's limit refuses
 * the whole send (ManualSendLimitError), counting nothing. Returns the endpoints to send to, and a
 * way to give the counts back when the send did not happen after all.
 */
export async function admitManualSend(
  deps: { config: Pick<Config, 'webhooks'>; db: Db; logger?: Logger },
  endpoints: readonly DeliveryEndpoint[],
): Promise<{ endpoints: DeliveryEndpoint[]; refund(): Promise<void> }> {
  const { config, db, logger } = deps;
  const bound = (e: DeliveryEndpoint) => e.status === 'disabled' && e.disabledByOperator;
  // A deleted endpoint is sent nothing (the delivery skips it): nothing to count either.
  const admitted = endpoints.filter((e) => !bound(e) && !e.deleted);
  const refusedBy = endpoints.find(bound);
  if (admitted.length === 0 && refusedBy) throw new EndpointDisabledByOperatorError(refusedBy.endpointId, 'send');
  const max = config.webhooks.manualSendsPerHour;
  const hits = await countHitsAllOrNone(
    db,
    admitted.map((e) => limitOf(e.endpointId, max)),
  );
  if (hits.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger?.warn({ err }, 'pruning ended rate-limit windows failed'));
  if (!hits.allowed) throw new ManualSendLimitError(hits.refusedBy.bucket.slice('webhook-manual-sends:'.length), max, Math.max(1, hits.retryAfterSeconds));
  return { endpoints: admitted, refund: () => hits.refund() };
}
