import type { Db } from '../../db/client.js';
import type { RefundResult } from '../payment-processor.js';

/**
 * The sandbox acquirer's durable memory (tables `sandbox_charges`, `sandbox_refunds`, migration 017; captures, migration 021):
 * what it approved and refunded outlives the worker process, as a real processor's does.
 */
export interface SandboxCharges {
  recordCharge(idempotencyKey: string, chargeId: string): Promise<void>;
  /** The charge approved under this key, if any. */
  chargeOfKey(idempotencyKey: string): Promise<string | undefined>;
  /** Whether the acquirer made this charge. */
  chargeExists(chargeId: string): Promise<boolean>;
  /** A manual authorization's capture: the first amount captured stays, so a retried capture captures once. Whether the charge exists. */
  recordCapture(chargeId: string, amount: number): Promise<boolean>;
  /** The first answer to this refund key, kept: a retried refund gets the same answer. */
  recordRefund(idempotencyKey: string, chargeId: string, result: RefundResult): Promise<RefundResult>;
}

export function sandboxChargesIn(db: Db): SandboxCharges {
  return {
    async recordCharge(idempotencyKey, chargeId) {
      await db`insert into sandbox_charges (idempotency_key, charge_id) values (${idempotencyKey}, ${chargeId}) on conflict do nothing`;
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
  };
}
