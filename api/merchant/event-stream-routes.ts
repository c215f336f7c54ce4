import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { presentedBearerToken } from '../../core/bearer-token.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { authenticateApiKey } from '../../core/merchants/api-keys.js';
import { readFeed, feedHorizon } from '../../core/webhooks/event-feed.js';
import { decodeFeedPosition, encodeFeedPosition, eventStreamQuerySchema, eventTypesOf, lastEventIdSchema } from '../../core/webhooks/event-feed-schema.js';
import { ApiError, validationError } from '../../application/errors.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { STREAM_EVENTS, STREAMS_PER_MERCHANT } from './event-paths.js';
import { MERCHANT_MOUNT } from './mount.js';

/**
 * How often an open stream reads the database. Polling rather than LISTEN/NOTIFY: the events are
 * recorded by the worker's ledger (core/webhooks/cart-events.ts), which would have to notify, and a
 * notification is lost while no API listens; a read from the last position sent is also what a
 * reconnect does, so one path serves both. A second is as soon as a developer looks.
 */
export const FEED_POLL_MS = 1_000;
/** A comment this often keeps proxies from closing an idle stream and lets the client tell a dead one. */
export const FEED_HEARTBEAT_MS = 15_000;
const FEED_BATCH = 100;
/**
 * How often an open stream checks its key again: a rotated or revoked key, or a deactivated merchant,
 * stops it within this, as their next request is refused (api/merchant/auth.ts). The client's
 * reconnection then gets the 401.
 */
export const FEED_REAUTH_MS = 5_000;
/** Seconds a refused client waits before it tries again: a stream it closed is closed by then. */
const STREAM_RETRY_AFTER_S = 5;

/**
 * `GET /v2/merchant/events/stream`: the merchant's events as server-sent events, as they are recorded
 * (core/webhooks/event-feed.ts), behind its API key (./routes.ts). Each message's `id` is its position;
 * a client that reconnects with it as `Last-Event-ID` gets what follows, nothing twice. `packages/listen/`
 * forwards them to a developer's machine.
 */
export function eventStreamRoutes(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const app = new Hono();
  const openStreams = new Map<string, number>();

  serve(app, MERCHANT_MOUNT, STREAM_EVENTS, async (c) => {
    const query = eventStreamQuerySchema.safeParse(c.req.query(), { reportInput: true });
    if (!query.success) throw validationError(query.error);
    const lastEventId = lastEventIdSchema.safeParse(c.req.header('last-event-id'));
    // A header's name is its path, as the Idempotency-Key's (application/carts/idempotency.ts).
    if (!lastEventId.success) throw validationError(undefined, [], [{ path: 'Last-Event-ID', message: lastEventId.error.issues[0]!.message }]);
    const types = eventTypesOf(query.data);
    const platformUuid = c.get('merchant').platformUuid;
    const apiKey = presentedBearerToken(c.req.header('authorization'));
    const resumed = lastEventId.data === undefined ? undefined : decodeFeedPosition(lastEventId.data);
    let position = resumed ?? (await feedHorizon(db));

    const open = openStreams.get(platformUuid) ?? 0;
    if (open >= STREAMS_PER_MERCHANT) {
      throw new ApiError(
        'RATE_LIMITED',
        `Too many open event streams: at most ${STREAMS_PER_MERCHANT} at once per merchant. Close one (or wait for one just closed to end), then retry after the delay in Retry-After.`,
        [],
        { 'Retry-After': String(STREAM_RETRY_AFTER_S) },
      );
    }
    openStreams.set(platformUuid, open + 1);
    const closed = () => {
      const left = (openStreams.get(platformUuid) ?? 1) - 1;
      if (left > 0) openStreams.set(platformUuid, left);
      else openStreams.delete(platformUuid);
    };

    return streamSSE(c, async (stream) => {
      // The start's position comes first, so a client that receives nothing before it reconnects still resumes from here.
      await stream.writeSSE({ event: 'ready', id: encodeFeedPosition(position), data: JSON.stringify({ types: types ?? null }) });
      let lastWrite = Date.now();
      let keyCheckedAt = Date.now();
      try {
        while (!stream.aborted) {
          if (Date.now() - keyCheckedAt >= FEED_REAUTH_MS) {
            if (!(await authenticateApiKey(db, apiKey, config.environment))) break;
            keyCheckedAt = Date.now();
          }
          const horizon = await feedHorizon(db);
          const events = await readFeed(db, config.keyring, platformUuid, { after: position, horizon, ...(types ? { types } : {}), limit: FEED_BATCH });
          for (const event of events) {
            await stream.writeSSE({ event: event.event, id: encodeFeedPosition(event.position), data: event.rawBody });
            position = event.position;
            lastWrite = Date.now();
          }
          if (events.length === FEED_BATCH) continue;
          if (Date.now() - lastWrite >= FEED_HEARTBEAT_MS) {
            await stream.write(': heartbeat\n\n');
            lastWrite = Date.now();
          }
          await stream.sleep(FEED_POLL_MS);
        }
      } catch (err) {
        // The client reconnects from the last id it received; the database's trouble is for our logs only.
        c.get('logger').warn({ err, platformUuid }, 'event stream ended by an error');
      } finally {
        closed();
      }
    });
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, STREAM_EVENTS);
  return app;
}
