import type { Context } from 'hono';
import { AUDIT_ENTRY_HEADER, recordAudit, type AuditActor, type AuditDecision } from '../core/audit/audit-log.js';
import { clientAddress } from '../core/client-address.js';
import type { Db } from '../core/db/client.js';

export type AuditedDecision = AuditDecision;

export interface AuditDeps {
  db: Db;
  config: { trustedProxyHops: number };
}

/**
 * Records a decision the request made and answers its entry's id in `Audit-Entry-Id`: called once the
 * change is made, before the answer is sent.
 */
export async function auditRequest(c: Context, deps: AuditDeps, actor: AuditActor, merchantId: string | null, decision: AuditedDecision): Promise<string> {
  const id = await recordAudit(deps.db, { ...decision, actor, merchantId, ip: clientAddress(c, deps.config.trustedProxyHops) });
  c.header(AUDIT_ENTRY_HEADER, id);
  return id;
}

/** A merchant API key's decision: the key (id and name) that `merchantAuth` set on the context is the actor. */
export function auditMerchantKey(c: Context, deps: AuditDeps, decision: AuditedDecision): Promise<string> {
  const merchant = c.get('merchant');
  return auditRequest(c, deps, { type: 'api_key', id: merchant.keyId, name: merchant.keyName }, merchant.platformUuid, decision);
}
