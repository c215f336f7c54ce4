import type { Context } from 'hono';
import { AUDIT_ENTRY_HEADER, recordAudit, TOKEN_OPERATOR, type AuditActor, type AuditDecision } from '../../core/audit/audit-log.js';
import { clientAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { DashboardSession } from '../../core/people/sessions.js';
import type { DashboardEnv } from './env.js';

/**
 * Who is signed in, as the audit log names them: a person by their id and email; a bootstrap session
 * by the API key it was opened with (its id and name) or the OPERATOR_TOKEN. The one place a
 * dashboard session becomes an actor.
 */
export function dashboardActor(c: Context<DashboardEnv>): AuditActor {
  const session = c.get('session');
  if (!session) throw new Error('An audited dashboard action ran without a signed-in person, merchant or operator');
  return sessionActor(session);
}

export function sessionActor(session: DashboardSession): AuditActor {
  if (session.userId) return { type: 'user', id: session.userId, email: session.email ?? '' };
  if (session.apiKeyId) return { type: 'api_key', id: session.apiKeyId, name: session.apiKeyName ?? '' };
  return TOKEN_OPERATOR;
}

/** Records what a person did before their session exists or after it ended (joining, signing in or out), as that person. */
export function dashboardAuditAs(deps: { db: Db; config: Pick<Config, 'trustedProxyHops'> }) {
  return (c: Context<DashboardEnv>, actor: AuditActor, merchantId: string | null, decision: AuditDecision): Promise<string> =>
    recordAudit(deps.db, { ...decision, actor, merchantId, ip: clientAddress(c, deps.config.trustedProxyHops) });
}

/** Records a dashboard decision once it is made, with the signed-in actor and the client's address; answers the entry's id (also in Audit-Entry-Id). */
export function dashboardAudit(deps: { db: Db; config: Pick<Config, 'trustedProxyHops'> }) {
  return async (c: Context<DashboardEnv>, merchantId: string | null, decision: AuditDecision): Promise<string> => {
    const id = await recordAudit(deps.db, { ...decision, actor: dashboardActor(c), merchantId, ip: clientAddress(c, deps.config.trustedProxyHops) });
    c.header(AUDIT_ENTRY_HEADER, id);
    return id;
  };
}
