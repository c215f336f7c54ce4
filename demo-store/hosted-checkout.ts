import { z } from 'zod';

/**
 * The store's client of Hosted Checkout's public HTTP APIs: create-cart (named by platformUuid, sent
 * with the secret API key) and the merchant API (the API key). Only these two, as any merchant would.
 */

export interface HostedCheckoutSettings {
  apiBaseUrl: string;
  platformUuid: string;
  /** `sk_…`: server side only, never in a page or a log. */
  apiKey: string;
}

const errorEnvelopeSchema = z.object({
  code: z.string(),
  message: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).default([]),
  requestId: z.string().optional(),
});

/** A refusal in the API's error envelope, or no usable answer at all. */
export class HostedCheckoutError extends Error {
  override name = 'HostedCheckoutError';
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string,
    readonly fieldErrors: { path: string; message: string }[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** The message, each field's problem, and the request id to quote to support. */
  describe(): string {
    const fields = this.fieldErrors.map((e) => ` ${e.path}: ${e.message}.`).join('');
    return `${this.message}${fields}${this.requestId ? ` (request ${this.requestId})` : ''}`;
  }
}

const createCartResponseSchema = z.object({ data: z.object({ cartId: z.string(), expiresOn: z.string() }) });
const refundSchema = z.object({ id: z.string(), amount: z.number().int(), status: z.string(), reason: z.string().nullable().optional() });
export type Refund = z.infer<typeof refundSchema>;

export interface CartLine {
  title: string;
  description: string;
  price: number;
  quantity: number;
  url: string;
  image: string;
  sku: string;
}

export function createHostedCheckoutClient(settings: HostedCheckoutSettings) {
  const base = settings.apiBaseUrl.replace(/\/+$/, '');

  async function call<T>(pathname: string, init: { body: unknown; idempotencyKey: string; bearer?: string }, schema: z.ZodType<T>): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}${pathname}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': init.idempotencyKey,
          ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
        },
        body: JSON.stringify(init.body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new HostedCheckoutError(
        `Hosted Checkout did not answer (${err instanceof Error ? err.message : String(err)}). Try again: the same order is never paid twice.`,
        null,
        'NO_ANSWER',
      );
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) {
      const parsed = schema.safeParse(body);
      if (parsed.success) return parsed.data;
      throw new HostedCheckoutError(
        `Hosted Checkout answered ${response.status} with a body this store does not understand.`,
        response.status,
        'UNEXPECTED_BODY',
      );
    }
    const envelope = errorEnvelopeSchema.safeParse(body);
    if (envelope.success) {
      const { code, message, errors, requestId } = envelope.data;
      throw new HostedCheckoutError(message, response.status, code, errors, requestId);
    }
    throw new HostedCheckoutError(`Hosted Checkout answered ${response.status}.`, response.status, 'UNEXPECTED_BODY');
  }

  return {
    /**
     * `POST /v2/public/api/cart/`, with the merchant's API key: the cart, and every webhook of it, then
     * says `createdWith: "api_key"`, which no one without the key can make (create-cart also takes
     * carts without it, `createdWith: "public"`, from anyone who knows the platformUuid). The store's
     * order id is the Idempotency-Key: asking again for the same order (a timeout, a double click)
     * returns the same cart instead of a second one.
     */
    createCart(input: {
      orderId: string;
      store: { name: string; url: string };
      currency: string;
      country: string;
      items: CartLine[];
      successUrl: string;
      failureUrl: string;
      /** `manual` when something ships later: authorized at checkout, captured from the orders page. */
      captureMethod?: 'manual';
    }): Promise<{ cartId: string; expiresOn: string }> {
      const body = {
        cartObject: {
          store: { platformUuid: settings.platformUuid, ...input.store },
          cart: {
            currency: input.currency,
            country: input.country,
            items: input.items.map((item) => ({ ...item, zeroPay: false })),
            // Echoed in every webhook: the link from the payment back to the store's order.
            extra: { orderId: input.orderId },
            merchantUrls: { successUrl: input.successUrl, failureUrl: input.failureUrl },
            ...(input.captureMethod ? { captureMethod: input.captureMethod } : {}),
          },
        },
      };
      return call('/v2/public/api/cart/', { body, idempotencyKey: input.orderId, bearer: settings.apiKey }, createCartResponseSchema).then((r) => r.data);
    },

    /** `POST /v2/merchant/orders/{cartId}/refunds`, with the merchant's API key. */
    refund(input: { cartId: string; amount: number; reason?: string; idempotencyKey: string }): Promise<Refund> {
      const body = { amount: input.amount, ...(input.reason ? { reason: input.reason } : {}) };
      return call(
        `/v2/merchant/orders/${encodeURIComponent(input.cartId)}/refunds`,
        { body, idempotencyKey: input.idempotencyKey, bearer: settings.apiKey },
        refundSchema,
      );
    },

    /**
     * `POST /v2/merchant/carts/{cartId}/retry`, with the merchant's API key: a new session of the same
     * cart after its payment failed, for the customer to try another card. The failed cartId names the
     * Idempotency-Key: asking again (a double click, a lost answer) returns the same new session.
     */
    retry(cartId: string): Promise<{ cartId: string; expiresOn: string; url: string }> {
      return call(
        `/v2/merchant/carts/${encodeURIComponent(cartId)}/retry`,
        { body: {}, idempotencyKey: `retry-${cartId}`, bearer: settings.apiKey },
        z.object({ cartId: z.string(), expiresOn: z.string(), url: z.string() }),
      );
    },

    /** `POST /v2/merchant/orders/{cartId}/capture` of the whole authorized amount; a repeat is the same capture. */
    capture(cartId: string): Promise<{ status: string }> {
      return call(
        `/v2/merchant/orders/${encodeURIComponent(cartId)}/capture`,
        { body: {}, idempotencyKey: `capture-${cartId}`, bearer: settings.apiKey },
        z.object({ status: z.string() }),
      );
    },
  };
}

export type HostedCheckoutClient = ReturnType<typeof createHostedCheckoutClient>;
