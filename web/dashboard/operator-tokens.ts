import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import {
  createOperatorToken,
  listOperatorTokens,
  OperatorTokenLimitError,
  operatorTokenNameSchema,
  revokeOperatorToken,
} from '../../core/people/operator-tokens.js';
import { dashboardAudit } from './audit.js';
import type { DashboardEnv } from './env.js';
import { operatorTokensPage, type OperatorTokensResult } from './views/operator-tokens.js';
import { words } from './views/format.js';

type C = Context<DashboardEnv>;

/**
 * An operator's personal tokens for the operator API and the codec, each operator for themselves: made
 * (shown this once), listed with last use, revoked. A bootstrap session (OPERATOR_TOKEN) is no person
 * and has none.
 */
export function operatorTokenRoutes(deps: { config: Config; db: Db }) {
  const { db } = deps;
  const audit = dashboardAudit(deps);
  const app = new Hono<DashboardEnv>();

  async function respond(c: C, result: OperatorTokensResult = {}, status: 200 | 201 | 403 | 404 | 409 | 422 = 200) {
    const session = c.get('session')!;
    const tokens = session.userId ? await listOperatorTokens(db, session.userId) : undefined;
    return c.html(operatorTokensPage({ who: session.email ?? words(session.role), tokens, csrf: c.get('csrf'), result }), status);
  }

  app.get('/', (c) => respond(c));

  app.post('/', async (c) => {
    const userId = c.get('session')!.userId;
    if (!userId) return respond(c, {}, 403);
    const body = await c.req.parseBody();
    const typed = typeof body.name === 'string' ? body.name : '';
    const name = operatorTokenNameSchema.safeParse(typed);
    if (!name.success) return respond(c, { name: typed, error: `The name ${name.error.issues[0]!.message}.` }, 422);
    try {
      const { token, summary } = await createOperatorToken(db, userId, name.data);
      await audit(c, null, { action: 'operator_token.create', target: `operator_token:${summary.id}`, after: { name: summary.name } });
      return await respond(c, { created: { name: summary.name, token } }, 201);
    } catch (err) {
      if (err instanceof OperatorTokenLimitError) return respond(c, { name: typed, error: err.message }, 409);
      throw err;
    }
  });

  app.post('/:id/revoke', async (c) => {
    const userId = c.get('session')!.userId;
    const id = c.req.param('id');
    const revoked = userId ? await revokeOperatorToken(db, userId, id) : undefined;
    if (!revoked) return respond(c, { error: 'No such active token among yours.' }, 404);
    await audit(c, null, { action: 'operator_token.revoke', target: `operator_token:${id}`, before: { name: revoked } });
    return respond(c, { revoked });
  });

  return app;
}
