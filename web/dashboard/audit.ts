import type { Context } from 'hono';
import { AUDIT_ENTRY_HEADER, recordAudit, TOKEN_OPERATOR, type AuditActor, type AuditDecision } from '../../core/audit/audit-log.js';
import { clientAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { DashboardEnv } from './env.js';

/**
 * Who is signed in, as the audit log names them: a merchant's session names the API key it was made
 * with (its id and name), an operator's the OPERATOR_TOKEN. The one place a dashboard session becomes
 * an actor.
 */
export function dashboardActor(c: Context<DashboardEnv>): AuditActor {
  const merchant = c.get('merchant');
  if (merchant) return { type: 'api_key', id: merchant.keyId, name: merchant.keyName };
  if (c.get('operator')) return TOKEN_OPERATOR;
  throw new Error('An audited dashboard action ran without a signed-in merchant or operator');
}

/** Records a dashboard decision once it is made, with the signed-in actor and the client's address; answers the entry's id (also in Audit-Entry-Id). */
export function dashboardAudit(deps: { db: Db; config: Pick<Config, 'trustedProxyHops'> }) {
  return async (c: Context<DashboardEnv>, merchantId: string | null, decision: AuditDecision): Promise<string> => {
    const id = await recordAudit(deps.db, { ...decision, actor: dashboardActor(c), merchantId, ip: clientAddress(c, deps.config.trustedProxyHops) });
    c.header(AUDIT_ENTRY_HEADER, id);
    return id;
  };
}
