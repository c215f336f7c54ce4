import { Hono, type Context } from 'hono';
import type { AuditActor } from '../../core/audit/audit-log.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import type { DashboardMailer } from '../../core/people/mail/message.js';
import { findPerson, peopleWithEmail, type Person } from '../../core/people/people.js';
import { checkSignInCode, issueSignInCode, SIGN_IN_CODE_LIFETIME_MS, type Side } from '../../core/people/sign-in-codes.js';
import { signedTokens } from '../../core/signed-token.js';
import { dashboardAuditAs } from './audit.js';
import { emailCodeLimit } from './email-code-limit.js';
import type { DashboardEnv } from './env.js';
import type { DashboardSessions } from './session.js';
import type { SignInLimit } from './sign-in-limit.js';
import { chooseTeamPage, emailCodePage } from './views/email-code.js';
import { signInPage } from './views/sign-in.js';

type C = Context<DashboardEnv>;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CHOICE_LIFETIME_MS = 5 * 60 * 1000;

/**
 * Signing in with a one-time code to one's email (docs/decisions/dashboard.md): the fallback for a
 * person without their passkey, who then creates one on Your account. Every answer is the same for an
 * address nobody has (a code is stored for it too, and never sent), so the page tells nobody who is a
 * member. Asking counts against the send limits (./email-code-limit.ts); a wrong code spends one of
 * the code's tries and counts against the address's refused sign-ins (./sign-in-limit.ts), like a wrong
 * passkey; past either limit the attempt is refused and written to the audit log as the person's.
 */
export function emailCodeRoutes(deps: { config: Config; db: Db; logger: Logger; sessions: DashboardSessions; limit: SignInLimit; mailer: DashboardMailer }) {
  const { config, db, logger, sessions } = deps;
  const sendLimit = emailCodeLimit(deps);
  const auditAs = dashboardAuditAs(deps);
  const choices = signedTokens(config.keyring.deriveKey('dashboard-email-code-team/v1'), CHOICE_LIFETIME_MS);
  const app = new Hono<DashboardEnv>();

  const form = async (c: C) => {
    const body = await c.req.parseBody();
    const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
    const side: Side = text('side') === 'operator' ? 'operator' : 'merchant';
    return { email: text('email').toLowerCase(), side, code: text('code').replace(/\s/g, ''), choice: text('choice') };
  };
  const asPerson = (person: Person): AuditActor => ({ type: 'user', id: person.id, email: person.email });

  /** Past a limit: the refusal, in the audit log as each person the address names (nobody's for an unknown one). */
  async function overLimit(c: C, email: string, side: Side, limit: string) {
    for (const person of await peopleWithEmail(db, email, side))
      await auditAs(c, asPerson(person), person.platformUuid ?? null, {
        action: 'person.sign_in_refused',
        target: `person:${person.id}`,
        after: { method: 'email_code', limit },
      });
  }

  async function signIn(c: C, person: Person) {
    await sessions.start(c, { platformUuid: person.platformUuid, role: person.role, credential: { userId: person.id } });
    await auditAs(c, asPerson(person), person.platformUuid ?? null, {
      action: 'person.sign_in',
      target: `person:${person.id}`,
      after: { method: 'email_code' },
    });
    return c.redirect('/dashboard/account', 303);
  }

  app.post('/sign-in/email-code', async (c) => {
    const { email, side } = await form(c);
    const csrf = c.get('csrf');
    if (!EMAIL.test(email) || email.length > 254)
      return c.html(signInPage({ role: side, csrf, emailError: 'Enter the email address you were invited with, like ana@example.com.' }), 422);
    const retryAfter = await sendLimit(c, email);
    if (retryAfter !== undefined) {
      c.header('Retry-After', String(retryAfter));
      const emailError = `Too many codes asked for: wait ${Math.ceil(retryAfter / 60)} minute(s), then ask again.`;
      return c.html(signInPage({ role: side, csrf, emailError }), 429);
    }
    const code = await issueSignInCode(db, config.keyring, email, side);
    const people = await peopleWithEmail(db, email, side);
    // Not awaited: an SMTP round trip would make a member's answer slower than a stranger's.
    if (people.length)
      deps.mailer
        .send({ kind: 'sign_in_code', to: email, code, lifetimeMs: SIGN_IN_CODE_LIFETIME_MS })
        .catch((err: unknown) => logger.error({ err }, 'dashboard sign-in code could not be emailed'));
    return c.html(emailCodePage({ email, side, csrf }));
  });

  app.post('/sign-in/email-code/verify', async (c) => {
    const { email, side, code } = await form(c);
    const csrf = c.get('csrf');
    const checked = EMAIL.test(email) ? await checkSignInCode(db, config.keyring, email, side, code) : ({ outcome: 'none' } as const);
    const people = checked.outcome === 'accepted' ? await peopleWithEmail(db, email, side) : [];
    if (people.length === 1) return signIn(c, people[0]!);
    if (people.length > 1) {
      const teams = await Promise.all(
        people.map(async (person) => ({
          name: person.platformUuid ? (await getMerchant(db, person.platformUuid)).name : 'Operators',
          role: person.role,
          choice: choices.issue([person.id, person.platformUuid ?? 'operators']),
        })),
      );
      return c.html(chooseTeamPage({ email, csrf, teams }));
    }
    const retryAfter = await deps.limit(c);
    if (retryAfter !== undefined || checked.outcome === 'locked') {
      await overLimit(c, email, side, retryAfter !== undefined ? 'address' : 'code');
      if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
      const error =
        retryAfter !== undefined
          ? `Too many sign-in attempts: wait ${Math.ceil(retryAfter / 60)} minute(s), then try again.`
          : 'Too many wrong codes: this code no longer works. Ask for a new one.';
      return c.html(emailCodePage({ email, side, csrf, error }), 429);
    }
    const error =
      checked.outcome === 'wrong'
        ? checked.attemptsLeft > 0
          ? `That is not the code we sent: ${checked.attemptsLeft} ${checked.attemptsLeft === 1 ? 'try' : 'tries'} left.`
          : 'That is not the code we sent, and it was the last try: ask for a new code.'
        : 'This code has expired or was already used: ask for a new one.';
    return c.html(emailCodePage({ email, side, csrf, error }), 401);
  });

  /** An email on several teams: after the code, the team this session is for. */
  app.post('/sign-in/email-code/team', async (c) => {
    const chosen = choices.verify((await form(c)).choice)?.fields;
    const person = chosen && (await findPerson(db, chosen[1] === 'operators' ? null : chosen[1]!, chosen[0]!));
    if (!person) return c.html(signInPage({ role: 'merchant', csrf: c.get('csrf'), emailError: 'That choice came too late: ask for a new code.' }), 401);
    return signIn(c, person);
  });

  return app;
}
