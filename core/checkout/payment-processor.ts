import { createHash } from 'node:crypto';
import type { Card } from './cards.js';
import type { Environment } from '../config.js';

export interface AuthorizationRequest {
  /** The processor returns the first result again for a repeated key: a retry never charges twice. */
  idempotencyKey: string;
  /** Minor units. */
  amount: number;
  currency: string;
  card: Card;
}

export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'not_a_test_card';

export type AuthorizationResult = { outcome: 'approved'; authorizationId: string } | { outcome: 'declined'; declineCode: DeclineCode };

/** A failure worth retrying (timeout, 5xx, network): the processor gave no answer. */
export class ProcessorUnavailableError extends Error {
  override name = 'ProcessorUnavailableError';
}

/** Authorizes card payments. Declines are results; only an unanswered request throws. */
export interface PaymentProcessor {
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizationResult>;
}

/** The sandbox test cards (docs/decisions/otp-and-cards.md), by number. */
export const SANDBOX_CARDS = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  processorError: '4000000000000119',
} as const;

/** The approved sandbox card must also carry expiry 12/30 and CVV 123. */
export const SANDBOX_TEST_CARD = { expMonth: 12, expYear: 2030, cvv: '123' } as const;

/**
 * The sandbox processor. It holds no state: its answer depends only on the card, and the
 * authorization id only on the idempotency key, so a repeated request gets the same authorization.
 */
export function createSandboxPaymentProcessor(environment: Environment): PaymentProcessor {
  if (environment === 'production') {
    throw new Error('The sandbox payment simulator never runs in production: give the production worker a real PaymentProcessor.');
  }
  return {
    name: 'sandbox',
    authorize({ idempotencyKey, card }) {
      // Settles as an async function would: the simulated outage's throw becomes a rejection.
      return new Promise((resolve) => resolve(sandboxAuthorization(idempotencyKey, card)));
    },
  };
}

function sandboxAuthorization(idempotencyKey: string, card: Card): AuthorizationResult {
  const testCard = SANDBOX_TEST_CARD;
  switch (card.pan) {
    case SANDBOX_CARDS.approved: {
      const matches = card.expMonth === testCard.expMonth && card.expYear === testCard.expYear && card.cvv === testCard.cvv;
      if (!matches) return { outcome: 'declined', declineCode: 'card_declined' };
      const authorizationId = `auth_sbx_${createHash('sha256').update(idempotencyKey).digest('base64url').slice(0, 24)}`;
      return { outcome: 'approved', authorizationId };
    }
    case SANDBOX_CARDS.declined:
      return { outcome: 'declined', declineCode: 'card_declined' };
    case SANDBOX_CARDS.insufficientFunds:
      return { outcome: 'declined', declineCode: 'insufficient_funds' };
    case SANDBOX_CARDS.processorError:
      throw new ProcessorUnavailableError('sandbox: simulated processor outage');
    default:
      return { outcome: 'declined', declineCode: 'not_a_test_card' };
  }
}
