import { RECOVERY_REMINDER_MINUTES, RETRIES, type CreateCartRequest } from '../../core/checkout/cart-schema.js';

/**
 * What makes two create-cart requests one under an Idempotency-Key: the request as it would be
 * without the values that only spell out a default (the deployment's session lifetime, automatic
 * capture, three retries, no recovery). A generated client that sends `sessionMinutes: 45`, `captureMethod: "automatic"`,
 * `retries: 3` and `recovery: {enabled: false}`
 * repeats the request that left them out; a request without them keeps the identity it always had,
 * so a retry across an upgrade still matches its first attempt.
 */
export function requestIdentity(request: CreateCartRequest, defaultLifetimeMs: number): CreateCartRequest {
  const { sessionMinutes, captureMethod, retries, recovery, ...cart } = request.cartObject.cart;
  return {
    ...request,
    cartObject: {
      ...request.cartObject,
      cart: {
        ...cart,
        ...(sessionMinutes !== undefined && sessionMinutes * 60_000 !== defaultLifetimeMs ? { sessionMinutes } : {}),
        ...(captureMethod !== undefined && captureMethod !== 'automatic' ? { captureMethod } : {}),
        ...(retries !== undefined && retries !== RETRIES.default ? { retries } : {}),
        // Disabled, reminderMinutes means nothing; enabled, its default is spelled out or not.
        ...(recovery?.enabled ? { recovery: { enabled: true, reminderMinutes: recovery.reminderMinutes ?? RECOVERY_REMINDER_MINUTES.default } } : {}),
      },
    },
  };
}
