import { z } from 'zod';
import { zonedDateTime } from '../zoned-date-time.js';
import { createCartRequestSchema } from '../checkout/cart-schema.js';

/**
 * Payment links (docs/payment-links.md): the request that creates one, the one that closes it, and
 * what the merchant API answers for one. The source of validation, types and the OpenAPI document.
 */

export const PAYMENT_LINK_LIMITS = {
  /** maxUses at most: far beyond a link's real life, small enough to stay an integer everywhere. */
  maxUses: 1_000_000,
  /** The newest links the list answers. */
  listSize: 100,
  /** A body is a cart and two fields: as large as create-cart's. */
  bodyBytes: 256 * 1024,
} as const;

/** Why a link mints no session any more: closed by the merchant, past expiresAt, or maxUses paid sessions reached. */
export const PAYMENT_LINK_STATUSES = ['open', 'closed', 'expired', 'used_up'] as const;
export type PaymentLinkStatus = (typeof PAYMENT_LINK_STATUSES)[number];

/** A link's id: `pl_` and 16 random bytes, URL-safe; what `/l/<id>` names. */
export const PAYMENT_LINK_ID_PATTERN = /^pl_[A-Za-z0-9_-]{22}$/;

const linkCartObjectSchema = createCartRequestSchema.shape.cartObject;

export const createPaymentLinkSchema = z
  .strictObject({
    // As create-cart takes it (CartObject), under the same URL rules: every session of the link is created with it.
    cartObject: linkCartObjectSchema,
    maxUses: z
      .int('must be a whole number of paid sessions')
      .min(1, 'must be at least 1 (paid sessions); leave it out for no limit')
      .max(PAYMENT_LINK_LIMITS.maxUses, `must be at most ${PAYMENT_LINK_LIMITS.maxUses}; leave it out for no limit`)
      .optional()
      .meta({
        description:
          'Paid sessions the link sells, never more: each Pay on one of its sessions (or on a retry or recovery of one) reserves a use, released if that payment fails or the session ends unpaid; once every use is held, new visits answer 410 and Pay is refused. Visits that did not pay do not count. Absent: no limit.',
        example: 1,
      }),
    expiresAt: zonedDateTime('must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T12:00:00Z')
      .optional()
      .meta({ description: 'After this moment the link answers 410 to new visits. Absent: it never expires.', example: '2030-01-01T12:00:00Z' }),
  })
  .meta({ id: 'CreatePaymentLinkRequest' });
export type CreatePaymentLinkRequest = z.output<typeof createPaymentLinkSchema>;

export const updatePaymentLinkSchema = z
  .strictObject({
    active: z.literal(false, { error: 'must be false: a closed link stays closed; create a new link to sell again' }).meta({
      description: 'false closes the link for good: new visits answer 410, and Pay is refused on the sessions already opened from it.',
    }),
  })
  .meta({ id: 'UpdatePaymentLinkRequest' });

export const paymentLinkSchema = z
  .strictObject({
    id: z.string().meta({ example: 'pl_3Jd8s0aKq1VbT7wYxZ2mNg' }),
    url: z.url().meta({
      description: 'Where to send customers: each visit opens a new checkout session of this cart',
      example: 'https://pay.example/l/pl_3Jd8s0aKq1VbT7wYxZ2mNg',
    }),
    active: z.boolean().meta({ description: 'false once you closed it (PATCH {"active": false})' }),
    status: z.enum(PAYMENT_LINK_STATUSES).meta({
      description:
        'open: a visit opens a session. closed: you closed it. expired: past expiresAt. used_up: maxUses paid sessions reached. Every status but open answers 410 to visits.',
      example: 'open',
    }),
    cartObject: linkCartObjectSchema,
    maxUses: z.int().nullable().meta({ description: 'As created; null: no limit', example: null }),
    expiresAt: z.iso.datetime().nullable().meta({ description: 'As created; null: never', example: null }),
    visits: z.int().meta({ description: 'Sessions opened from the link (one per visit that was let through)', example: 3 }),
    paid: z.int().meta({ description: 'Of those, the sessions paid (with captureMethod manual: authorized), what maxUses counts', example: 1 }),
    createdAt: z.iso.datetime().meta({ example: '2030-01-01T12:00:00.000Z' }),
    closedAt: z.iso.datetime().nullable().meta({ description: 'When you closed it; null while active', example: null }),
  })
  .meta({ id: 'PaymentLink', description: 'A payment link: a cart any number of customers can pay, each in a session of their own.' });
export type PaymentLink = z.output<typeof paymentLinkSchema>;

export const paymentLinkListSchema = z
  .strictObject({ data: z.array(paymentLinkSchema).meta({ description: `Your ${PAYMENT_LINK_LIMITS.listSize} newest links, newest first` }) })
  .meta({ id: 'PaymentLinkList' });
