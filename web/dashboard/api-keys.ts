import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import {
  ApiKeyLimitError,
  apiKeyNameSchema,
  apiKeyScopeSchema,
  createApiKey,
  listApiKeys,
  revokeApiKeyById,
  type ApiKeyScope,
} from '../../core/merchants/api-keys.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { mayManageApiKey } from './access.js';
import { dashboardAudit } from './audit.js';
import type { DashboardEnv } from './env.js';
import { apiKeysPage, type ApiKeysResult } from './views/api-keys.js';

type C = Context<DashboardEnv>;

/**
 * The merchant's API keys (issue 51, point 5): listed with scope and last use, created (the key shown
 * this once), revoked one at a time; the others keep working. Whoever the role table lets in, and a
 * `full` key only by a role that may grant owner (./access.ts, mayManageApiKey).
 */
export function apiKeyRoutes(deps: { config: Config; db: Db }) {
  const { db } = deps;
  const audit = dashboardAudit(deps);
  const app = new Hono<DashboardEnv>();
  const me = (c: C) => c.get('merchant')!;

  const role = (c: C) => c.get('session')!.role;

  async function respond(c: C, result: ApiKeysResult = {}, status: 200 | 201 | 403 | 404 | 409 | 422 = 200) {
    const [merchant, keys] = await Promise.all([getMerchant(db, me(c).platformUuid), listApiKeys(db, me(c).platformUuid)]);
    const manages = (scope: ApiKeyScope) => mayManageApiKey(role(c), scope);
    return c.html(apiKeysPage({ keys, currentKeyId: c.get('session')!.apiKeyId, csrf: c.get('csrf'), result, who: merchant.name, manages }), status);
  }

  const ownersOnly = (action: string) =>
    `Only an owner can ${action} a full key: it signs in to the dashboard as owner and does everything the merchant API does. Ask an owner, or choose carts or read.`;

  app.get('/api-keys', (c) => respond(c));

  app.post('/api-keys', async (c) => {
    const body = await c.req.parseBody();
    const form = { name: typeof body.name === 'string' ? body.name : '', scope: typeof body.scope === 'string' ? body.scope : '' };
    const name = apiKeyNameSchema.safeParse(form.name);
    if (!name.success) return respond(c, { form, error: `The name ${name.error.issues[0]!.message}.` }, 422);
    const scope = apiKeyScopeSchema.safeParse(form.scope);
    if (!scope.success) return respond(c, { form, error: 'Choose a scope: full, carts or read.' }, 422);
    if (!mayManageApiKey(role(c), scope.data)) return respond(c, { form, error: ownersOnly('create') }, 403);
    try {
      const { key, apiKey } = await createApiKey(db, me(c).platformUuid, { name: name.data, scope: scope.data });
      await audit(c, me(c).platformUuid, { action: 'api_key.create', target: `api_key:${key.id}`, after: { name: key.name, scope: key.scope } });
      return await respond(c, { created: { name: key.name, scope: key.scope, apiKey } }, 201);
    } catch (err) {
      if (err instanceof ApiKeyLimitError) return respond(c, { form, error: err.message }, 409);
      throw err;
    }
  });

  app.post('/api-keys/:id/revoke', async (c) => {
    const id = c.req.param('id');
    const key = (await listApiKeys(db, me(c).platformUuid)).find((k) => k.id === id);
    if (key && !mayManageApiKey(role(c), key.scope)) return respond(c, { error: ownersOnly('revoke') }, 403);
    const revoked = await revokeApiKeyById(db, me(c).platformUuid, id);
    if (!revoked) return respond(c, { error: 'No such active key among yours.' }, 404);
    await audit(c, me(c).platformUuid, { action: 'api_key.revoke', target: `api_key:${id}`, before: { name: revoked.name, scope: revoked.scope } });
    // The session's own key: this browser is signed out with it.
    if (id === c.get('session')!.apiKeyId) return c.redirect('/dashboard/sign-in', 303);
    return respond(c, { revoked: revoked.name });
  });

  return app;
}
