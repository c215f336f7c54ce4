import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { findDeliveryEndpoint } from '../../core/merchants/merchant-store.js';
import { EndpointDisabledByOperatorError } from '../../core/webhooks/endpoints.js';
import { admitManualSend, ManualSendLimitError } from '../../core/webhooks/manual-sends.js';
import { EventNotSubscribedError } from '../../core/webhooks/replay.js';

export type ManualSendRefusal = { status: 409 | 422 | 429; message: string; retryAfterSeconds?: number };

/**
 * The dashboard's words for a refused manual send (core/webhooks/manual-sends.ts: one limit per
 * merchant and target origin for test events and replays, from the dashboard and the merchant API
 * together; nothing to an endpoint an operator disabled; core/webhooks/replay.ts: no replay to an
 * endpoint that does not take the event), or undefined for any other error.
 */
export function manualSendRefusal(err: unknown): ManualSendRefusal | undefined {
  if (err instanceof EndpointDisabledByOperatorError) return { status: 409, message: err.message };
  if (err instanceof EventNotSubscribedError)
    return { status: 422, message: `Not sent: this endpoint takes ${err.enabledEvents.join(', ')}, not ${err.event}. Change its events to send it this one.` };
  if (!(err instanceof ManualSendLimitError)) return undefined;
  const minutes = Math.max(1, Math.ceil(err.retryAfterSeconds / 60));
  return {
    status: 429,
    message: `Too many test events and replays: at most ${err.max} an hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    retryAfterSeconds: err.retryAfterSeconds,
  };
}

/**
 * A test event from the dashboard goes to the merchant's first endpoint (core/webhooks/test-event.ts):
 * counted there like a replay. Answers why it is refused, or undefined when it may go. Replays are
 * admitted by replayEvent itself (core/webhooks/replay.ts).
 */
export function testEventGuard(deps: { config: Pick<Config, 'webhooks'>; db: Db; logger: Logger }) {
  return async (platformUuid: string): Promise<ManualSendRefusal | undefined> => {
    const endpoint = await findDeliveryEndpoint(deps.db, platformUuid);
    if (!endpoint) return undefined;
    try {
      await admitManualSend(deps, platformUuid, [endpoint]);
      return undefined;
    } catch (err) {
      const refusal = manualSendRefusal(err);
      if (!refusal) throw err;
      return refusal;
    }
  };
}
