import { createHash } from 'node:crypto';
import type { Environment } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Card } from '../cards.js';
import {
  ProcessorUnavailableError,
  type ChargeRequest,
  type ChargeResult,
  type PaymentProcessor,
  type RefundResult,
  type SaveCardResult,
  type SavedChargeRequest,
} from '../payment-processor.js';
import { adapterAmount, SANDBOX_CURRENCIES } from '../processor-amounts.js';
import { sandboxChargesIn, type SandboxAmount, type SandboxAuthentication, type SandboxSavedBehaviour } from './sandbox-charges.js';

/** The sandbox test cards (docs/decisions/otp-and-cards.md), by number. */
export const SANDBOX_CARDS = {
  approved: '4111111111111111',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  /** Never answers, and nothing reaches the acquirer: lookup says not found. */
  processorError: '4000000000000119',
  /** Approved, but the first answer is lost on the way back (0259 until issue 55 gave that number to disputes, as Stripe's test mode does). */
  answerLostOnce: '4000000000000283',
  /** Approved, then disputed by the simulated customer shortly after the order is paid (docs/webhooks.md, Disputes). */
  disputed: '4000000000000259',
  /** The first two requests time out without reaching the acquirer; the third is approved. */
  timesOutTwice: '4000000000000267',
  /** Never answers; the acquirer approves the first request late (SandboxOptions.lateApprovalMs). */
  neverAnswers: '4000000000000275',
  /** Always asks for a 3-D Secure challenge, answered on the sandbox challenge page (needs SandboxOptions.db). */
  challenge: '4000002760003184',
  /** Approved after a frictionless 3-D Secure authentication: no challenge, no redirect. */
  frictionless: '4000000000003055',
} as const;

/**
 * The sandbox issuer's challenge page, served by the checkout page's process beside `/3ds/return`
 * (web/checkout/sandbox-challenge.ts): the payment's `redirectUrl` is this path on the return URL's origin.
 */
export const SANDBOX_CHALLENGE_PATH = '/3ds/sandbox-challenge';

/**
 * The sandbox's failing refund: a refund of exactly this amount (13.13 in a two-decimal currency) is
 * declined with `refund_declined`, whatever the card (docs/decisions/otp-and-cards.md).
 */
export const SANDBOX_REFUND_DECLINED_AMOUNT = 1313;

/** The approved sandbox card must also carry expiry 12/30 and CVV 123. */
export const SANDBOX_TEST_CARD = { expMonth: 12, expYear: 2030, cvv: '123' } as const;

export interface SandboxOptions {
  /** How long after its first request the never-answers card's approval lands at the acquirer. */
  lateApprovalMs?: number;
  /**
   * Where the acquirer keeps its approved charges and refunds (core/checkout/payment-processors/sandbox-charges.ts),
   * so a refund after a worker restart finds its charge. The worker always passes it; without it, only this process remembers.
   */
  db?: Db;
}

/** What the sandbox acquirer holds for one idempotency key. */
export interface SandboxRecord {
  /** charge() calls received, answered or not. */
  requests: number;
  /** Charges actually made (approved) for this key: never more than one. */
  charges: number;
  result?: ChargeResult;
  /** A void by key arrived: any approval for this key, now or later, is voided. */
  voided: boolean;
  /** What the first charge request asked, in the sandbox's units (ISO 4217 minor units). */
  requested?: SandboxAmount;
  /** What a manual authorization's capture took, once captured. */
  captured?: number;
  refunds: Map<string, RefundResult>;
}

/**
 * The sandbox acquirer's working memory, per idempotency key: the simulated outages and late
 * approvals of one process. What it approved and refunded is also written to PostgreSQL when the
 * processor is given a database (SandboxOptions.db), so lookup and refund answer after a restart.
 */
const sandboxStore = new Map<string, SandboxRecord>();

/** For tests: what the sandbox acquirer did for this key. */
export function sandboxRecord(idempotencyKey: string): Readonly<SandboxRecord> | undefined {
  return sandboxStore.get(idempotencyKey);
}

/** An amount as the sandbox charges it: ISO 4217 minor units, refused where the production processor would refuse it. */
const sandboxAmount = (amount: number, currency: string): SandboxAmount => ({
  amount: adapterAmount(SANDBOX_CURRENCIES, 'sandbox', currency, amount),
  currency,
});

const unavailable = () => new ProcessorUnavailableError('sandbox: simulated processor outage (no answer)');
const sandboxId = (prefix: string, key: string) => `${prefix}_sbx_${createHash('sha256').update(key).digest('base64url').slice(0, 24)}`;

/**
 * The sandbox processor. Its answer depends only on the card; what it did is remembered per
 * idempotency key, so a repeated request gets the same charge and `lookup` tells what happened.
 */
export function createSandboxPaymentProcessor(environment: Environment, options: SandboxOptions = {}): PaymentProcessor {
  if (environment === 'production') {
    throw new Error('The sandbox payment simulator never runs in production: give the production worker a real PaymentProcessor.');
  }
  const lateApprovalMs = options.lateApprovalMs ?? 20_000;
  const stored = options.db ? sandboxChargesIn(options.db) : undefined;

  const recordOf = (key: string): SandboxRecord => {
    let record = sandboxStore.get(key);
    if (!record) sandboxStore.set(key, (record = { requests: 0, charges: 0, voided: false, refunds: new Map() }));
    return record;
  };
  /** The acquirer decides: an approval is one charge, voided at once if the key was voided. */
  const decide = (key: string, record: SandboxRecord, card: Card): ChargeResult => {
    record.result ??= sandboxDecision(key, card);
    if (record.result.outcome === 'approved' && record.charges === 0) record.charges = 1;
    return record.result;
  };

  return {
    name: 'sandbox',
    // The simulated card network takes any answer: evidence goes to review (the dispute workflow decides it), accepting loses.
    submitDisputeEvidence: () => Promise.resolve('under_review'),
    acceptDispute: () => Promise.resolve('lost'),
    // Each method settles as an async function would: a simulated outage's throw becomes a rejection.
    charge: async (request) => {
      const record = recordOf(request.idempotencyKey);
      record.requested ??= sandboxAmount(request.amount, request.currency);
      if (request.card.pan === SANDBOX_CARDS.challenge) return startChallenge(request.idempotencyKey, request.returnUrl);
      const result = await simulateCharge(request);
      if (stored && result.outcome === 'approved') await stored.recordCharge(request.idempotencyKey, result.chargeId, record.requested);
      return result;
    },
    authenticationResult: async ({ idempotencyKey, chargeId }) => {
      const authentication = await stored?.authenticationOfCharge(chargeId);
      if (!authentication || authentication.idempotencyKey !== idempotencyKey) return AUTHENTICATION_FAILED;
      return settleChallenge(authentication);
    },
    lookup: async ({ idempotencyKey }) => {
      const authentication = await stored?.authenticationOfKey(idempotencyKey);
      if (authentication) return { found: true, result: await settleChallenge(authentication) };
      const result = sandboxStore.get(idempotencyKey)?.result;
      if (result) {
        if (stored && result.outcome === 'approved') await stored.recordCharge(idempotencyKey, result.chargeId, sandboxStore.get(idempotencyKey)?.requested);
        return { found: true, result };
      }
      const chargeId = await stored?.chargeOfKey(idempotencyKey);
      return chargeId ? { found: true, result: { outcome: 'approved', chargeId } } : { found: false };
    },
    void: async ({ idempotencyKey }) => {
      recordOf(idempotencyKey).voided = true;
      await stored?.voidAuthentication(idempotencyKey);
    },
    capture: async ({ chargeId, amount: requested, currency }) => {
      const { amount } = sandboxAmount(requested, currency);
      const record = [...sandboxStore.values()].find((r) => r.result?.outcome === 'approved' && r.result.chargeId === chargeId);
      // A released hold cannot be captured, nor a charge the acquirer never made.
      if (record?.voided) return { outcome: 'declined', declineCode: 'capture_declined' };
      const known = stored ? await stored.recordCapture(chargeId, amount) : record !== undefined;
      if (!known) return { outcome: 'declined', declineCode: 'capture_declined' };
      if (record) record.captured ??= amount;
      return { outcome: 'captured' };
    },
    refund: async ({ idempotencyKey, chargeId, amount: requested, currency }) => {
      const { amount } = sandboxAmount(requested, currency);
      const [key, record] = [...sandboxStore.entries()].find(([, r]) => r.result?.outcome === 'approved' && r.result.chargeId === chargeId) ?? [];
      if (stored && key !== undefined) await stored.recordCharge(key, chargeId, record?.requested);
      // A charge the acquirer never made cannot be refunded.
      if (!record && !(await stored?.chargeExists(chargeId))) return { outcome: 'declined', declineCode: 'charge_not_found' };
      const decided: RefundResult =
        record?.refunds.get(idempotencyKey) ??
        (amount === SANDBOX_REFUND_DECLINED_AMOUNT
          ? { outcome: 'declined', declineCode: 'refund_declined' }
          : { outcome: 'refunded', refundId: sandboxId('re', idempotencyKey) });
      const refund = stored ? await stored.recordRefund(idempotencyKey, chargeId, decided) : decided;
      record?.refunds.set(idempotencyKey, refund);
      return refund;
    },

    /**
     * Saves a card the sandbox would approve (the challenge card too), as a reference that remembers
     * how the card answers, never its number. Any other card is refused as its charge would be.
     */
    saveCard: async ({ idempotencyKey, card }): Promise<SaveCardResult> => {
      if (!stored) return { outcome: 'declined', declineCode: 'processing_error' };
      const behaviour = savedBehaviourOf(idempotencyKey, card);
      if (behaviour.outcome === 'declined') return behaviour;
      const reference = sandboxId('pm', idempotencyKey);
      await stored.savePaymentMethod(reference, behaviour.behaviour);
      return {
        outcome: 'saved',
        reference: { paymentMethodRef: reference },
        brand: card.brand,
        last4: card.last4,
        expMonth: card.expMonth,
        expYear: card.expYear,
      };
    },

    /** A saved card is approved by its reference alone, as the card it stands for would be; an unknown or detached one is declined. */
    chargeSaved: async (request: SavedChargeRequest): Promise<ChargeResult> => {
      const record = recordOf(request.idempotencyKey);
      record.requested ??= sandboxAmount(request.amount, request.currency);
      const behaviour = await stored?.savedBehaviour(request.saved.paymentMethodRef);
      if (!behaviour) {
        record.requests++;
        return (record.result ??= { outcome: 'declined', declineCode: 'card_declined', threeDSecure: 'not_required' });
      }
      if (behaviour === 'challenge') return startChallenge(request.idempotencyKey, request.returnUrl);
      record.requests++;
      record.result ??= {
        outcome: 'approved',
        chargeId: sandboxId('ch', request.idempotencyKey),
        threeDSecure: behaviour === 'frictionless' ? 'frictionless' : 'not_required',
      };
      if (record.result.outcome === 'approved') {
        record.charges = 1;
        await stored?.recordCharge(request.idempotencyKey, record.result.chargeId, record.requested);
      }
      return record.result;
    },

    detachCard: async ({ paymentMethodRef }) => {
      await stored?.detachPaymentMethod(paymentMethodRef);
    },
  };

  /**
   * The challenge card: a payment waiting for the cardholder on the sandbox challenge page, whose
   * answer the page's process writes to PostgreSQL. Without a return URL, or a database to share the
   * answer through, no challenge can happen: declined as a card that needs one.
   */
  async function startChallenge(idempotencyKey: string, returnUrl: string | undefined): Promise<ChargeResult> {
    recordOf(idempotencyKey).requests++;
    if (!returnUrl || !stored) return { outcome: 'declined', declineCode: 'authentication_required', threeDSecure: 'failed' };
    const chargeId = sandboxId('pi', idempotencyKey);
    const challengePage = new URL(SANDBOX_CHALLENGE_PATH, returnUrl);
    challengePage.search = new URLSearchParams({ payment: chargeId, return: returnUrl }).toString();
    return settleChallenge(await stored.startAuthentication(idempotencyKey, chargeId, challengePage.toString()));
  }

  /** Where a challenge stands: still waiting, or the cardholder's answer (a voided payment takes none). */
  async function settleChallenge(authentication: SandboxAuthentication): Promise<ChargeResult> {
    const { idempotencyKey, chargeId } = authentication;
    if (authentication.voided || authentication.result === 'failed') return AUTHENTICATION_FAILED;
    if (authentication.result === null) return { outcome: 'requires_authentication', chargeId, redirectUrl: authentication.redirectUrl };
    const record = recordOf(idempotencyKey);
    record.result = { outcome: 'approved', chargeId, threeDSecure: 'authenticated' };
    record.charges = 1;
    await stored?.recordCharge(idempotencyKey, chargeId, record.requested);
    return record.result;
  }

  function simulateCharge({ idempotencyKey, card }: ChargeRequest): Promise<ChargeResult> {
    return new Promise<ChargeResult>((resolve) => {
      const record = recordOf(idempotencyKey);
      record.requests++;
      if (record.result) return resolve(record.result);
      switch (card.pan) {
        case SANDBOX_CARDS.processorError:
          throw unavailable();
        case SANDBOX_CARDS.answerLostOnce:
          decide(idempotencyKey, record, card);
          if (record.requests === 1) throw unavailable();
          return resolve(record.result!);
        case SANDBOX_CARDS.timesOutTwice:
          if (record.requests <= 2) throw unavailable();
          return resolve(decide(idempotencyKey, record, card));
        case SANDBOX_CARDS.neverAnswers:
          if (record.requests === 1) setTimeout(() => decide(idempotencyKey, record, card), lateApprovalMs).unref();
          throw unavailable();
        default:
          return resolve(decide(idempotencyKey, record, card));
      }
    });
  }
}

/** How a card to be saved will answer its charges: the challenge card asks for 3-D Secure, the rest as they would be approved. */
function savedBehaviourOf(
  idempotencyKey: string,
  card: Card,
):
  { outcome: 'saved'; behaviour: SandboxSavedBehaviour } | { outcome: 'declined'; declineCode: Extract<ChargeResult, { outcome: 'declined' }>['declineCode'] } {
  if (card.pan === SANDBOX_CARDS.challenge) return { outcome: 'saved', behaviour: 'challenge' };
  const decided = sandboxDecision(idempotencyKey, card);
  if (decided.outcome === 'declined') return { outcome: 'declined', declineCode: decided.declineCode };
  return { outcome: 'saved', behaviour: card.pan === SANDBOX_CARDS.frictionless ? 'frictionless' : 'approved' };
}

const AUTHENTICATION_FAILED: ChargeResult = { outcome: 'declined', declineCode: 'authentication_failed', threeDSecure: 'failed' };

function sandboxDecision(idempotencyKey: string, card: Card): ChargeResult {
  const testCard = SANDBOX_TEST_CARD;
  const approved: ChargeResult = { outcome: 'approved', chargeId: sandboxId('ch', idempotencyKey), threeDSecure: 'not_required' };
  switch (card.pan) {
    case SANDBOX_CARDS.approved: {
      const matches = card.expMonth === testCard.expMonth && card.expYear === testCard.expYear && card.cvv === testCard.cvv;
      return matches ? approved : { outcome: 'declined', declineCode: 'card_declined', threeDSecure: 'not_required' };
    }
    case SANDBOX_CARDS.answerLostOnce:
    case SANDBOX_CARDS.disputed:
    case SANDBOX_CARDS.timesOutTwice:
    case SANDBOX_CARDS.neverAnswers:
      return approved;
    case SANDBOX_CARDS.frictionless:
      return { ...approved, threeDSecure: 'frictionless' };
    case SANDBOX_CARDS.declined:
      return { outcome: 'declined', declineCode: 'card_declined', threeDSecure: 'not_required' };
    case SANDBOX_CARDS.insufficientFunds:
      return { outcome: 'declined', declineCode: 'insufficient_funds', threeDSecure: 'not_required' };
    default:
      return { outcome: 'declined', declineCode: 'not_a_test_card', threeDSecure: 'not_required' };
  }
}
