/**
 * The event names the API sends (its event reference: docs/webhooks.md). Repeated here because this
 * package stands alone; test/integration/listen.test.ts holds it to the product's list.
 */
export const EVENT_NAMES = ['order_created', 'order_updated', 'order_cancelled', 'order_refunded', 'order_abandoned', 'order_disputed'];

/** The names of a comma-separated list that are not event names. */
export const unknownEventNames = (list) => list.split(',').filter((name) => !EVENT_NAMES.includes(name));
