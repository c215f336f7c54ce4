import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { addPasskey, deletePasskey, findPasskey, listPasskeys, recordPasskeyUse } from '../../core/people/passkeys.js';
import { acceptInvitation, findInvitation, type Person } from '../../core/people/people.js';
import { signedTokens } from '../../core/signed-token.js';
import { dashboardAudit, dashboardAuditAs } from './audit.js';
import type { DashboardEnv } from './env.js';
import { DASHBOARD_PATH, type DashboardSessions } from './session.js';
import type { SignInLimit } from './sign-in-limit.js';
import { accountPage, invitationPage } from './views/passkeys.js';
import { dashboardMessage } from './views/layout.js';

type C = Context<DashboardEnv>;
const CHALLENGE_COOKIE = 'dashboard_webauthn';
const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
const RP_NAME = 'Hosted Checkout dashboard';

/**
 * Passkeys (@simplewebauthn/server; the browser half, @simplewebauthn/browser, is served from our
 * origin): an invitation is accepted by enrolling one, and a person signs in with one. Each ceremony's
 * challenge travels in a short-lived signed cookie of its own purpose and is used once. The relying
 * party is the checkout origin's host: a passkey made here works only here.
 */
export function passkeyRoutes(deps: { config: Config; db: Db; logger: Logger; sessions: DashboardSessions; limit: SignInLimit }) {
  const { config, db, logger, sessions } = deps;
  const origin = new URL(config.checkoutBaseUrl).origin;
  const rpID = new URL(config.checkoutBaseUrl).hostname;
  const challenges = signedTokens(config.keyring.deriveKey('dashboard-webauthn-challenge/v1'), CHALLENGE_LIFETIME_MS);
  const secure = config.checkoutBaseUrl.startsWith('https:');
  const app = new Hono<DashboardEnv>();
  const audit = dashboardAudit(deps);
  const auditAs = dashboardAuditAs(deps);
  const asPerson = (person: Person) => ({ type: 'user' as const, id: person.id, email: person.email });
  /** A passkey's id in the log: enough to tell one from another, not the whole credential id. */
  const passkeyTarget = (id: string) => `passkey:${id.slice(0, 16)}`;

  const remember = (c: C, purpose: string, challenge: string) =>
    setCookie(c, CHALLENGE_COOKIE, challenges.issue([purpose, challenge]), {
      httpOnly: true,
      secure,
      sameSite: 'Strict',
      path: DASHBOARD_PATH,
      maxAge: CHALLENGE_LIFETIME_MS / 1000,
    });
  /** The challenge this browser was given for this purpose, forgotten as it is read: one answer per challenge. */
  const recall = (c: C, purpose: string) => {
    const token = challenges.verify(getCookie(c, CHALLENGE_COOKIE));
    deleteCookie(c, CHALLENGE_COOKIE, { path: DASHBOARD_PATH, secure });
    return token?.fields.length === 2 && token.fields[0] === purpose ? token.fields[1] : undefined;
  };
  const answer = async (c: C) => {
    const value = (await c.req.parseBody())['response'];
    try {
      return typeof value === 'string' ? (JSON.parse(value) as unknown) : undefined;
    } catch {
      return undefined;
    }
  };
  const fail = (c: C, error: string, status: 400 | 401 | 410 = 400) => c.json({ error }, status);
  /**
   * A refused sign-in counts against the address, as every sign-in does (web/dashboard/sign-in-limit.ts);
   * past the limit, a passkey that is someone's puts the refusal in the audit log as theirs.
   */
  const refusedSignIn = async (c: C, error: string, person?: Person) => {
    const retryAfter = await deps.limit(c);
    if (retryAfter === undefined) return fail(c, error, 401);
    if (person)
      await auditAs(c, asPerson(person), person.platformUuid ?? null, {
        action: 'person.sign_in_refused',
        target: `person:${person.id}`,
        after: { method: 'passkey', limit: 'address' },
      });
    c.header('Retry-After', String(retryAfter));
    return c.json({ error: `Too many sign-in attempts: wait ${Math.ceil(retryAfter / 60)} minute(s), then try again.` }, 429);
  };
  const gone = (c: C) =>
    c.html(
      dashboardMessage('This invitation no longer works', 'Invitations work once, for 48 hours, until revoked. Ask whoever invited you for a new one.'),
      410,
    );

  /** Verifies a new passkey's registration against the challenge this browser was given for `purpose`. */
  async function registration(c: C, purpose: string) {
    const expectedChallenge = recall(c, purpose);
    const response = await answer(c);
    if (!expectedChallenge || !response) return undefined;
    try {
      const verified = await verifyRegistrationResponse({
        response: response as never,
        expectedChallenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
      return verified.verified ? verified.registrationInfo.credential : undefined;
    } catch (err) {
      logger.info({ err }, 'dashboard passkey enrolment refused');
      return undefined;
    }
  }

  app.get('/invitations/:token', async (c) => {
    const invitation = await findInvitation(db, c.req.param('token'));
    if (!invitation) return gone(c);
    const team = invitation.platformUuid ? (await getMerchant(db, invitation.platformUuid)).name : 'the operators of this deployment';
    return c.html(invitationPage({ token: c.req.param('token'), email: invitation.email, role: invitation.role, team, csrf: c.get('csrf') }));
  });

  app.post('/invitations/:token/options', async (c) => {
    const invitation = await findInvitation(db, c.req.param('token'));
    if (!invitation) return fail(c, 'This invitation no longer works: ask for a new one.', 410);
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID,
      userName: invitation.email,
      attestationType: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    remember(c, 'enrol', options.challenge);
    return c.json(options);
  });

  app.post('/invitations/:token/passkey', async (c) => {
    const token = c.req.param('token');
    const credential = await registration(c, 'enrol');
    if (!credential) return fail(c, 'This passkey could not be checked, or came too late: try again.');
    const person = await db.begin(async (tx) => {
      const accepted = await acceptInvitation(tx, token);
      if (accepted)
        await addPasskey(tx, accepted.id, {
          id: credential.id,
          publicKey: credential.publicKey,
          counter: credential.counter,
          transports: credential.transports ?? [],
        });
      return accepted;
    });
    if (!person) return fail(c, 'This invitation no longer works: ask for a new one.', 410);
    const team = person.platformUuid ?? null;
    await auditAs(c, asPerson(person), team, { action: 'person.join', target: `person:${person.id}`, after: { email: person.email, role: person.role } });
    await auditAs(c, asPerson(person), team, { action: 'person.passkey_add', target: passkeyTarget(credential.id) });
    await sessions.start(c, { platformUuid: person.platformUuid, role: person.role, credential: { userId: person.id } });
    return c.json({ redirect: person.platformUuid ? '/dashboard' : '/dashboard/operator' });
  });

  app.post('/sign-in/passkey/options', async (c) => {
    const options = await generateAuthenticationOptions({ rpID, userVerification: 'preferred' });
    remember(c, 'sign-in', options.challenge);
    return c.json(options);
  });

  /** Another passkey for the person signed in (after an email code on a new device, say): their existing ones are excluded. */
  app.post('/account/passkeys/options', async (c) => {
    const session = c.get('session')!;
    if (!session.userId || !session.email) return fail(c, 'A bootstrap sign-in has no person to make a passkey for: accept an invitation instead.');
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID,
      userName: session.email,
      attestationType: 'none',
      excludeCredentials: (await listPasskeys(db, session.userId)).map((passkey) => ({ id: passkey.id })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    remember(c, 'add', options.challenge);
    return c.json(options);
  });

  app.post('/account/passkeys', async (c) => {
    const session = c.get('session')!;
    const credential = await registration(c, 'add');
    if (!session.userId || !credential) return fail(c, 'This passkey could not be checked, or came too late: try again.');
    await addPasskey(db, session.userId, {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
    });
    await audit(c, session.platformUuid ?? null, { action: 'person.passkey_add', target: passkeyTarget(credential.id) });
    return c.json({ redirect: '/dashboard/account' });
  });

  app.post('/sign-in/passkey', async (c) => {
    const expectedChallenge = recall(c, 'sign-in');
    const response = (await answer(c)) as { id?: unknown } | undefined;
    if (!expectedChallenge || typeof response?.id !== 'string') return fail(c, 'The passkey answer came too late or was not one: try again.');
    const found = await findPasskey(db, response.id);
    if (!found) return refusedSignIn(c, 'This passkey is not one of ours, or was deleted, or its person removed.');
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response: response as never,
        expectedChallenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: found.passkey,
        requireUserVerification: false,
      });
    } catch (err) {
      logger.info({ err }, 'dashboard passkey sign-in refused');
      return refusedSignIn(c, 'This passkey could not be checked: try again.', found.person);
    }
    if (!verified.verified) return refusedSignIn(c, 'This passkey could not be checked: try again.', found.person);
    await recordPasskeyUse(db, found.passkey.id, verified.authenticationInfo.newCounter);
    const { person } = found;
    await sessions.start(c, { platformUuid: person.platformUuid, role: person.role, credential: { userId: person.id } });
    await auditAs(c, asPerson(person), person.platformUuid ?? null, { action: 'person.sign_in', target: `person:${person.id}`, after: { method: 'passkey' } });
    return c.json({ redirect: person.platformUuid ? '/dashboard' : '/dashboard/operator' });
  });

  const me = (c: C) => c.get('session')!.userId;

  app.get('/account', async (c) => {
    const session = c.get('session')!;
    const passkeys = session.userId ? await listPasskeys(db, session.userId) : [];
    return c.html(accountPage({ session, passkeys, csrf: c.get('csrf') }));
  });

  app.post('/account/passkeys/:id/delete', async (c) => {
    const userId = me(c);
    if (!userId || !(await deletePasskey(db, userId, c.req.param('id')))) {
      return c.html(dashboardMessage('Not found', 'That passkey is not yours, or was already deleted.'), 404);
    }
    await audit(c, c.get('session')!.platformUuid ?? null, { action: 'person.passkey_remove', target: passkeyTarget(c.req.param('id')) });
    // Every session of this person ended, this one too.
    sessions.forget(c);
    return c.redirect('/dashboard/sign-in', 303);
  });

  return app;
}
