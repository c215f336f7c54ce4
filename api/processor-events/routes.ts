import { Hono } from 'hono';
import type { Counter } from 'prom-client';
import Stripe from 'stripe';
import { ApiError } from '../../application/errors.js';
import { stripeEventWork, stripeObjectId } from '../../application/processor-events/stripe-events.js';
import { processorEventSeen, recordProcessorEvent } from '../../core/checkout/processor-events.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { disputeWorkflows } from '../../workflows/dispute/client.js';
import { lateOutcomeWorkflows } from '../../workflows/late-outcome/client.js';
import { refundFailureWorkflows } from '../../workflows/refund-failure/client.js';
import { errorResponse } from '../errors.js';

export const PROCESSOR_EVENTS_MOUNT = '/processor-events';

/** Stripe's events are small; a body past this is not one of them and is never read further. */
const MAX_EVENT_BYTES = 256 * 1024;

const STRIPE = 'stripe';

/**
 * `POST /processor-events/stripe`: the processor's own events (docs/webhooks.md, Processor events). The
 * signature is verified over the raw bytes by the `stripe` library (its default tolerance, 300 s, as Stripe
 * recommends), each event is kept once by its id, and the work goes to a workflow; the answer comes at once.
 */
export function processorEventRoutes(deps: { config: Config; db: Db; temporal: Temporal; logger: Logger; processorEvents: Counter<'processor' | 'outcome'> }) {
  const { config, db, logger, processorEvents } = deps;
  const disputes = disputeWorkflows(deps.temporal.client, config);
  const lateOutcomes = lateOutcomeWorkflows(deps.temporal.client, config);
  const refundFailures = refundFailureWorkflows(deps.temporal.client, config);
  const app = new Hono();

  const refuse = (c: Parameters<typeof errorResponse>[0], why: string) => {
    processorEvents.inc({ processor: STRIPE, outcome: 'rejected' });
    logger.warn({ processor: STRIPE, why }, 'processor event refused');
    return errorResponse(
      c,
      new ApiError('INVALID_SIGNATURE', `The event was not accepted: ${why}. Nothing was done.`, [{ path: 'Stripe-Signature', message: why }]),
    );
  };

  app.post('/stripe', async (c) => {
    const secret = config.processorEvents.stripeWebhookSecret;
    if (!secret) return refuse(c, 'this deployment has no STRIPE_WEBHOOK_SECRET, so no event can be verified');
    const signature = c.req.header('stripe-signature');
    if (!signature) return refuse(c, 'the Stripe-Signature header is missing');
    const raw = Buffer.from(await c.req.arrayBuffer());
    if (raw.byteLength > MAX_EVENT_BYTES) return refuse(c, 'the body is larger than any Stripe event');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(raw, signature, secret);
    } catch (error) {
      return refuse(c, error instanceof Error ? error.message : 'the signature does not verify');
    }

    if (await processorEventSeen(db, STRIPE, event.id)) {
      processorEvents.inc({ processor: STRIPE, outcome: 'duplicate' });
      return c.json({ received: true, duplicate: true });
    }
    const work = await stripeEventWork(db, event);
    // The workflow first: a redelivery after a failure here finds the event unrecorded and hands it over again,
    // and the workflows' own ids (dispute-<id>, late-outcome-stripe-<event id>, refund-failure-stripe-<event id>) keep that to one of each.
    if (work.kind === 'dispute') await disputes.tell(work.opening);
    if (work.kind === 'late_outcome') await lateOutcomes.start(STRIPE, work.input);
    if (work.kind === 'refund_failure') await refundFailures.start(STRIPE, work.input);
    const outcome = work.kind === 'ignored' ? 'ignored' : 'handled';
    const first = await recordProcessorEvent(db, { processor: STRIPE, id: event.id, type: event.type, objectId: stripeObjectId(event), outcome });
    processorEvents.inc({ processor: STRIPE, outcome: first ? outcome : 'duplicate' });
    logger.info({ processor: STRIPE, eventId: event.id, type: event.type, outcome, ...(work.kind === 'ignored' ? { why: work.why } : {}) }, 'processor event');
    return c.json({ received: true, ...(work.kind === 'ignored' ? { ignored: true } : {}) });
  });
  return app;
}
