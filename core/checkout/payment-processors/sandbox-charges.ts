import type { Db } from '../../db/client.js';
import type { RefundResult } from '../payment-processor.js';

/** An amount as the sandbox acquirer charged it: ISO 4217 minor units of `currency`. */
export interface SandboxAmount {
  amount: number;
  currency: string;
}

/** How a saved sandbox card answers its charges (table `sandbox_payment_methods`, migration 032). */
export type SandboxSavedBehaviour = 'approved' | 'frictionless' | 'challenge';

/** A payment waiting on the sandbox's 3-D Secure challenge, and the cardholder's answer once given. */
export interface SandboxAuthentication {
  idempotencyKey: string;
  chargeId: string;
  redirectUrl: string;
  result: 'authenticated' | 'failed' | null;
  voided: boolean;
}

/**
 * The sandbox acquirer's durable memory (tables `sandbox_charges`, `sandbox_refunds`, migration 017; captures, migration 021; amounts, migration 024):
 * what it approved and refunded outlives the worker process, as a real processor's does.
 */
export interface SandboxCharges {
  /** `charged`: what was asked, when this process still knows it; the first amount recorded stays. */
  recordCharge(idempotencyKey: string, chargeId: string, charged?: SandboxAmount): Promise<void>;
  /** The charge approved under this key, if any. */
  chargeOfKey(idempotencyKey: string): Promise<string | undefined>;
  /** Whether the acquirer made this charge. */
  chargeExists(chargeId: string): Promise<boolean>;
  /** A manual authorization's capture: the first amount captured stays, so a retried capture captures once. Whether the charge exists. */
  recordCapture(chargeId: string, amount: number): Promise<boolean>;
  /** The first answer to this refund key, kept: a retried refund gets the same answer. */
  recordRefund(idempotencyKey: string, chargeId: string, result: RefundResult): Promise<RefundResult>;
  /** A challenge started for this key (table `sandbox_authentications`, migration 020); the first one stays. */
  startAuthentication(idempotencyKey: string, chargeId: string, redirectUrl: string): Promise<SandboxAuthentication>;
  authenticationOfKey(idempotencyKey: string): Promise<SandboxAuthentication | undefined>;
  authenticationOfCharge(chargeId: string): Promise<SandboxAuthentication | undefined>;
  /**
   * The cardholder's answer on the challenge page. The first answer stays, and a voided payment takes
   * none: false when nothing was recorded.
   */
  answerAuthentication(chargeId: string, result: 'authenticated' | 'failed'): Promise<boolean>;
  voidAuthentication(idempotencyKey: string): Promise<void>;
  /** A saved-card reference the sandbox issued, with how its card answers (never the number); the first one stays. */
  savePaymentMethod(reference: string, behaviour: SandboxSavedBehaviour): Promise<void>;
  /** How a saved reference answers; undefined when the sandbox never issued it or it was detached. */
  savedBehaviour(reference: string): Promise<SandboxSavedBehaviour | undefined>;
  detachPaymentMethod(reference: string): Promise<void>;
}

interface AuthenticationRow {
  idempotency_key: string;
  charge_id: string;
  redirect_url: string;
  result: 'authenticated' | 'failed' | null;
  voided: boolean;
}

const toAuthentication = (row: AuthenticationRow): SandboxAuthentication => ({
  idempotencyKey: row.idempotency_key,
  chargeId: row.charge_id,
  redirectUrl: row.redirect_url,
  result: row.result,
  voided: row.voided,
});

export function sandboxChargesIn(db: Db): SandboxCharges {
  return {
    async recordCharge(idempotencyKey, chargeId, charged) {
      await db`
        insert into sandbox_charges (idempotency_key, charge_id, amount, currency)
        values (${idempotencyKey}, ${chargeId}, ${charged?.amount ?? null}, ${charged?.currency ?? null})
        on conflict (idempotency_key) do update
          set amount = coalesce(sandbox_charges.amount, excluded.amount), currency = coalesce(sandbox_charges.currency, excluded.currency)`;
    },
    async chargeOfKey(idempotencyKey) {
      const [row] = await db<{ charge_id: string }[]>`select charge_id from sandbox_charges where idempotency_key = ${idempotencyKey}`;
      return row?.charge_id;
    },
    async chargeExists(chargeId) {
      const [row] = await db<{ found: number }[]>`select 1 as found from sandbox_charges where charge_id = ${chargeId}`;
      return row !== undefined;
    },
    async recordCapture(chargeId, amount) {
      const rows = await db`
        update sandbox_charges set captured_amount = coalesce(captured_amount, ${amount}) where charge_id = ${chargeId} returning charge_id`;
      return rows.length > 0;
    },
    async recordRefund(idempotencyKey, chargeId, result) {
      await db`
        insert into sandbox_refunds (idempotency_key, charge_id, result)
        values (${idempotencyKey}, ${chargeId}, ${db.json(result)}) on conflict (idempotency_key) do nothing`;
      const [row] = await db<{ result: RefundResult }[]>`select result from sandbox_refunds where idempotency_key = ${idempotencyKey}`;
      return row!.result;
    },
    async startAuthentication(idempotencyKey, chargeId, redirectUrl) {
      await db`
        insert into sandbox_authentications (idempotency_key, charge_id, redirect_url)
        values (${idempotencyKey}, ${chargeId}, ${redirectUrl}) on conflict do nothing`;
      return (await this.authenticationOfKey(idempotencyKey))!;
    },
    async authenticationOfKey(idempotencyKey) {
      const [row] = await db<AuthenticationRow[]>`
        select idempotency_key, charge_id, redirect_url, result, voided_at is not null as voided
        from sandbox_authentications where idempotency_key = ${idempotencyKey}`;
      return row && toAuthentication(row);
    },
    async authenticationOfCharge(chargeId) {
      const [row] = await db<AuthenticationRow[]>`
        select idempotency_key, charge_id, redirect_url, result, voided_at is not null as voided
        from sandbox_authentications where charge_id = ${chargeId}`;
      return row && toAuthentication(row);
    },
    async answerAuthentication(chargeId, result) {
      const answered = await db`
        update sandbox_authentications set result = ${result}
        where charge_id = ${chargeId} and result is null and voided_at is null`;
      return answered.count === 1;
    },
    async voidAuthentication(idempotencyKey) {
      await db`update sandbox_authentications set voided_at = coalesce(voided_at, now()) where idempotency_key = ${idempotencyKey}`;
    },
    async savePaymentMethod(reference, behaviour) {
      await db`insert into sandbox_payment_methods (reference, behaviour) values (${reference}, ${behaviour}) on conflict do nothing`;
    },
    async savedBehaviour(reference) {
      const [row] = await db<{ behaviour: SandboxSavedBehaviour }[]>`
        select behaviour from sandbox_payment_methods where reference = ${reference} and detached_at is null`;
      return row?.behaviour;
    },
    async detachPaymentMethod(reference) {
      await db`update sandbox_payment_methods set detached_at = coalesce(detached_at, now()) where reference = ${reference}`;
    },
  };
}
