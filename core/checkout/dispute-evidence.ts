import { z } from 'zod';

/**
 * A merchant's evidence for a dispute, as the API takes it. Apart from core/checkout/dispute-model.ts
 * because the workflows import that one: every module a workflow imports is evaluated again for each
 * workflow the worker creates, and zod with this schema was a quarter of the workflow thread's time
 * (docs/decisions/session-cost.md).
 */

/** The kinds of evidence a merchant may answer with (docs/api.md, Disputes); each maps to the processor's own fields. */
export const EVIDENCE_KINDS = ['product_delivered', 'service_provided', 'refund_policy', 'cancellation', 'duplicate_charge', 'other'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

const text = (max: number, description: string, example: string) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).meta({ description, example });

export const disputeEvidenceSchema = z
  .strictObject({
    kind: z.enum(EVIDENCE_KINDS).meta({
      description:
        'What the evidence shows: product_delivered (shipping details), service_provided (the service date), refund_policy (the customer was told and refused a refund), cancellation (why the cancellation does not apply), duplicate_charge (why the two charges differ), other',
      example: 'product_delivered',
    }),
    explanation: text(
      20000,
      'Your account of the transaction, in words, as the card network will read it',
      'Delivered on 3 March; signed for by the customer.',
    ),
    productDescription: text(2000, 'What was sold', 'Blue mug, 350 ml').optional(),
    customerName: text(200, 'The customer as you know them', 'Ada Lovelace').optional(),
    customerEmailAddress: text(320, 'The customer’s email as you know it', 'ada@example.com').optional(),
    shippingCarrier: text(200, 'With product_delivered', 'La Poste').optional(),
    shippingTrackingNumber: text(200, 'With product_delivered', '6A12345678901').optional(),
    shippingDate: text(40, 'With product_delivered, as you write dates', '2030-03-01').optional(),
    serviceDate: text(40, 'With service_provided, as you write dates', '2030-03-01').optional(),
  })
  .meta({
    id: 'DisputeEvidence',
    description:
      'Your answer to a dispute: the evidence is customer data, kept sealed and sent once to the processor (Stripe: the dispute’s evidence, submitted).',
  });
export type DisputeEvidence = z.output<typeof disputeEvidenceSchema>;
