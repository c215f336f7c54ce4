import { Hono, type Context } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { DashboardMailer } from '../../core/people/mail/message.js';
import currencyCodes from 'currency-codes';
import { getMerchant } from '../../core/merchants/merchants.js';
import {
  AlreadyOnTeamError,
  changeRole,
  findPerson,
  invite,
  listPeople,
  pendingInvitations,
  removePerson,
  revokeInvitation,
  setSupportRefundLimit,
  supportRefundLimits,
  type Team,
} from '../../core/people/people.js';
import { isMerchantRole, isOperatorRole, isRole, MERCHANT_ROLES, OPERATOR_ROLES, type Role } from '../../core/people/roles.js';
import { mayGrant } from './access.js';
import { dashboardAudit } from './audit.js';
import type { DashboardEnv } from './env.js';
import { parseRefundAmount } from './refund-amount.js';
import { peoplePage, type PeopleResult } from './views/people.js';

type C = Context<DashboardEnv>;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A merchant's people (owner) or the operators (operator_admin): who has which role, pending
 * invitations, inviting, changing a role, removing someone, and, for a merchant, the most a `support`
 * member may refund. Nobody grants a role they do not hold (web/dashboard/access.ts `mayGrant`), and
 * nobody changes or removes themselves (an owner cannot lock the merchant out by mistake).
 */
export function peopleRoutes(deps: { config: Config; db: Db; logger: Logger; mailer: DashboardMailer; team: 'merchant' | 'operators' }) {
  const { config, db, logger } = deps;
  const app = new Hono<DashboardEnv>();
  const audit = dashboardAudit(deps);
  const teamOf = (c: C): Team => (deps.team === 'merchant' ? c.get('merchant')!.platformUuid : null);
  const teamRoles: readonly Role[] = deps.team === 'merchant' ? MERCHANT_ROLES : OPERATOR_ROLES;
  const fits = (role: string): role is Role => isRole(role) && (deps.team === 'merchant' ? isMerchantRole(role) : isOperatorRole(role));
  const field = async (c: C, name: string) => {
    const value = (await c.req.parseBody())[name];
    return typeof value === 'string' ? value.trim() : '';
  };

  async function respond(c: C, result: PeopleResult = {}, status: 200 | 201 | 404 | 409 | 422 = 200) {
    const team = teamOf(c);
    const session = c.get('session')!;
    const [people, invitations, limits, who] = await Promise.all([
      listPeople(db, team),
      pendingInvitations(db, team),
      team ? supportRefundLimits(db, team) : undefined,
      team ? getMerchant(db, team).then((m) => m.name) : 'Operators',
    ]);
    const view = {
      base: deps.team === 'merchant' ? '/dashboard/people' : '/dashboard/operator/people',
      team: deps.team,
      who,
      me: session.userId,
      grantable: teamRoles.filter((role) => mayGrant(session.role, role)),
      people,
      invitations,
      limits,
      csrf: c.get('csrf'),
      result,
    };
    return c.html(peoplePage(view), status);
  }

  app.get('/', (c) => respond(c));

  app.post('/invitations', async (c) => {
    const email = (await field(c, 'email')).toLowerCase();
    const role = await field(c, 'role');
    if (!EMAIL.test(email) || email.length > 254) return respond(c, { error: 'Enter the email address of the person to invite, like ana@example.com.' }, 422);
    if (!fits(role) || !mayGrant(c.get('session')!.role, role))
      return respond(c, { error: 'Choose one of the roles offered: you can give only roles you hold.' }, 422);
    let created: Awaited<ReturnType<typeof invite>>;
    try {
      created = await invite(db, teamOf(c), { email, role });
    } catch (err) {
      if (err instanceof AlreadyOnTeamError) return respond(c, { error: err.message }, 409);
      throw err;
    }
    await audit(c, teamOf(c), { action: 'person.invite', target: `invitation:${created.id}`, after: { email, role } });
    const url = `${config.checkoutBaseUrl}/dashboard/invitations/${created.token}`;
    const team = teamOf(c) ? (await getMerchant(db, teamOf(c)!)).name : 'the operators of this deployment';
    // The link is also shown once below, so a mail that fails still leaves the inviter a way to pass it on.
    const emailed = await deps.mailer.send({ kind: 'invitation', to: email, url, team, role, expiresAt: created.expiresAt }).then(
      () => true,
      (err: unknown) => {
        logger.error({ err }, 'dashboard invitation could not be emailed');
        return false;
      },
    );
    return respond(c, { invited: { email, url, emailed } }, 201);
  });

  app.post('/invitations/:id/revoke', async (c) => {
    if (!(await revokeInvitation(db, teamOf(c), c.req.param('id')))) return respond(c, { error: 'That invitation was already used, revoked or expired.' }, 404);
    await audit(c, teamOf(c), { action: 'person.invitation_revoke', target: `invitation:${c.req.param('id')}` });
    return respond(c, { done: 'Invitation revoked: its link no longer works.' });
  });

  if (deps.team === 'merchant')
    app.post('/refund-limit', async (c) => {
      const team = teamOf(c)!;
      const currency = (await field(c, 'currency')).toUpperCase();
      if (!currencyCodes.code(currency)) return respond(c, { error: 'Enter a currency code, like EUR.' }, 422);
      const amount = parseRefundAmount(await field(c, 'maxAmount'), currency);
      if ('problem' in amount) return respond(c, { error: amount.problem }, 422);
      const before = (await supportRefundLimits(db, team)).get(currency) ?? null;
      await setSupportRefundLimit(db, team, currency, amount.minor);
      await audit(c, team, {
        action: 'person.refund_limit_change',
        target: `merchant:${team}`,
        before: { currency, maxAmount: before },
        after: { currency, maxAmount: amount.minor },
      });
      return respond(c, { done: `Support may now refund up to that amount in ${currency} at once.` });
    });

  /** The person a post names, if on this team and not the one signed in. */
  const other = async (c: C) => {
    const person = await findPerson(db, teamOf(c), c.req.param('id') ?? '');
    return person && person.id !== c.get('session')!.userId ? person : undefined;
  };

  app.post('/:id/role', async (c) => {
    const person = await other(c);
    if (!person) return respond(c, { error: 'That person is not on this team, or is you: ask another to change your own role.' }, 404);
    const role = await field(c, 'role');
    const granter = c.get('session')!.role;
    if (!fits(role) || !mayGrant(granter, role) || !mayGrant(granter, person.role)) return respond(c, { error: 'You can give only roles you hold.' }, 422);
    if (await changeRole(db, teamOf(c), person.id, role))
      await audit(c, teamOf(c), {
        action: 'person.role_change',
        target: `person:${person.id}`,
        before: { email: person.email, role: person.role },
        after: { role },
      });
    return respond(c, { done: `${person.email} is now ${role}; their sessions ended.` });
  });

  app.post('/:id/remove', async (c) => {
    const person = await other(c);
    if (!person || !mayGrant(c.get('session')!.role, person.role)) return respond(c, { error: 'That person is not on this team, or is you.' }, 404);
    if (await removePerson(db, teamOf(c), person.id))
      await audit(c, teamOf(c), { action: 'person.remove', target: `person:${person.id}`, before: { email: person.email, role: person.role } });
    return respond(c, { done: `${person.email} was removed and signed out everywhere.` });
  });

  return app;
}
