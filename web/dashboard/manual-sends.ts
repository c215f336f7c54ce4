import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { findDeliveryEndpoint } from '../../core/merchants/merchant-store.js';
import { countHit, pruneEndedWindows } from '../../core/rate-limits.js';

const HOUR_SECONDS = 3600;

export type ManualSendRefusal = { status: 409 | 429; message: string; retryAfterSeconds?: number };

/**
 * What a merchant sends by hand from the dashboard, test events and replays, each making us POST signed
 * JSON to its URL: none to an endpoint an operator disabled (that decision binds until an operator enables
 * it again), and at most WEBHOOK_MANUAL_SENDS_PER_HOUR per merchant, so the dashboard is not a way to
 * aim our requests at a URL at will. Answers why a send is refused, or undefined when it may go.
 */
export function manualSendGuard(deps: { config: Pick<Config, 'webhooks'>; db: Db; logger: Logger }) {
  const { config, db, logger } = deps;
  return async (platformUuid: string): Promise<ManualSendRefusal | undefined> => {
    const endpoint = await findDeliveryEndpoint(db, platformUuid);
    if (endpoint?.status === 'disabled' && endpoint.disabledByOperator) {
      return {
        status: 409,
        message:
          'An operator disabled your endpoint: nothing is sent to it, test events and replays included, until an operator enables it again. Contact support.',
      };
    }
    const max = config.webhooks.manualSendsPerHour;
    const count = await countHit(db, { bucket: `webhook-manual-sends:${platformUuid}`, max, windowSeconds: HOUR_SECONDS });
    if (count.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    if (count.allowed) return undefined;
    const minutes = Math.max(1, Math.ceil(count.retryAfterSeconds / 60));
    return {
      status: 429,
      message: `Too many test events and replays: at most ${max} an hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      retryAfterSeconds: count.retryAfterSeconds,
    };
  };
}
