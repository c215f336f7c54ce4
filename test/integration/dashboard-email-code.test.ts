import { describe, expect, it } from 'vitest';
import { readDashboardMail } from '../../core/people/mail/outbox.js';
import { SIGN_IN_CODE_ATTEMPTS } from '../../core/people/sign-in-codes.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { addPerson } from '../support/dashboard-people.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Signing in to the dashboard with a one-time code emailed to the person (web/dashboard/email-code.ts),
 * through the real web app and PostgreSQL, the mail read from the sandbox outbox as a developer would.
 */
describe('dashboard sign-in with an emailed code', () => {
  // One trusted hop: each client says its own address (test/support/dashboard-client.ts). Hour-long
  // windows, so a count never straddles a window's end.
  const stack = useTestStack({
    TRUST_PROXY: '1',
    OTP_SENDS_PER_DESTINATION: '3',
    OTP_SENDS_PER_CLIENT: '6',
    OTP_SENDS_WINDOW_SECONDS: '3600',
    RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: '30',
    RATE_LIMIT_WINDOW_SECONDS: '3600',
  });
  const client = () => dashboardClient(stack.checkoutUrl);
  const email = (what: string) => `${what}-${crypto.randomUUID()}@example.com`;

  /** The newest code the outbox "sent" to an address (delivery is not awaited by the page). */
  async function mailedCode(address: string, after = 0): Promise<string> {
    let code = '';
    await waitFor(async () => {
      const codes = (await readDashboardMail(stack.db, stack.config.keyring, address)).filter((m) => m.kind === 'sign_in_code');
      code = codes.length > after ? codes[0]!.secret : '';
      return code !== '' ? true : undefined;
    });
    return code;
  }

  async function askForCode(browser: ReturnType<typeof client>, address: string, side: 'merchant' | 'operator' = 'merchant') {
    await browser.get(side === 'merchant' ? '/dashboard/sign-in' : '/dashboard/sign-in/operator');
    return browser.post('/dashboard/sign-in/email-code', { email: address, side });
  }

  it('signs a person in with the code, once, into a server-side session, and audits it as theirs', async () => {
    const merchant = await stack.createMerchant();
    const person = await addPerson(stack.db, merchant.platformUuid, 'support', email('support'));
    const browser = client();
    const asked = await askForCode(browser, person.email.toUpperCase());
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('we emailed it a six-digit code');
    const code = await mailedCode(person.email);
    expect(code).toMatch(/^\d{6}$/);

    const signedIn = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/dashboard/account');
    const account = await browser.get('/dashboard/account');
    expect(account.status).toBe(200);
    expect(account.body).toContain(person.email);
    expect(account.body).toContain('Create a passkey on this device');
    const [session] = await stack.db<{ count: string }[]>`select count(*) from dashboard_sessions where user_id = ${person.id} and ended_at is null`;
    expect(Number(session!.count)).toBe(1);

    // Used once: the same code again, from another browser, is refused.
    const again = client();
    await again.get('/dashboard/sign-in');
    const reused = await again.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code });
    expect(reused.status).toBe(401);
    expect(reused.body).toContain('This code has expired or was already used');
    expect(again.jar.has('dashboard_session')).toBe(false);

    const entries = await stack.db<{ action: string; actor_type: string; actor_label: string; after: unknown }[]>`
      select action, actor_type, actor_label, after from audit_log where target = ${`person:${person.id}`} order by at, id`;
    expect(entries).toEqual([{ action: 'person.sign_in', actor_type: 'user', actor_label: person.email, after: { method: 'email_code' } }]);
  });

  it('keeps no code in clear: the code table holds a keyed hash, the outbox a sealed message, the log neither', async () => {
    const merchant = await stack.createMerchant();
    const person = await addPerson(stack.db, merchant.platformUuid, 'analyst', email('analyst'));
    await askForCode(client(), person.email);
    const code = await mailedCode(person.email);
    const [row] = await stack.db<{ code_hash: string }[]>`select code_hash from dashboard_sign_in_codes where email = ${person.email}`;
    expect(row!.code_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const table of ['dashboard_sign_in_codes', 'dashboard_mail_outbox', 'audit_log', 'rate_limit_windows']) {
      const [found] = await stack.db<{ count: string }[]>`
        select count(*) from ${stack.db(table)} t where t::text like ${`%${code}%`} or encode(convert_to(t::text, 'UTF8'), 'escape') like ${`%${code}%`}`;
      expect(Number(found!.count), `${table} holds the code in clear`).toBe(0);
    }
    const [sealed] = await stack.db<{ secret_sealed: Buffer; recipient_sealed: Buffer }[]>`
      select secret_sealed, recipient_sealed from dashboard_mail_outbox order by id desc limit 1`;
    expect(sealed!.secret_sealed.toString('latin1')).not.toContain(code);
    expect(sealed!.recipient_sealed.toString('latin1')).not.toContain(person.email);
  });

  it('refuses a wrong code in words, counts the tries, then locks the code and audits the refusals as the person', async () => {
    const merchant = await stack.createMerchant();
    const person = await addPerson(stack.db, merchant.platformUuid, 'developer', email('developer'));
    const browser = client();
    await askForCode(browser, person.email);
    const code = await mailedCode(person.email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let left = SIGN_IN_CODE_ATTEMPTS - 1; left >= 0; left--) {
      const refused = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code: wrong });
      expect(refused.status).toBe(401);
      expect(refused.body).toContain(left > 0 ? `That is not the code we sent: ${left} ${left === 1 ? 'try' : 'tries'} left.` : 'it was the last try');
      expect(refused.body).toContain('aria-invalid="true"');
    }
    // Locked: even the right code no longer works.
    const locked = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code });
    expect(locked.status).toBe(429);
    expect(locked.body).toContain('Too many wrong codes: this code no longer works');
    expect(browser.jar.has('dashboard_session')).toBe(false);
    const audited = await stack.db<{ action: string; actor_label: string; after: unknown }[]>`
      select action, actor_label, after from audit_log where target = ${`person:${person.id}`} order by at, id`;
    expect(audited).toEqual([{ action: 'person.sign_in_refused', actor_label: person.email, after: { method: 'email_code', limit: 'code' } }]);

    // A new code works again.
    await browser.post('/dashboard/sign-in/email-code', { email: person.email, side: 'merchant' });
    const fresh = await mailedCode(person.email, 1);
    expect((await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code: fresh })).status).toBe(303);
  });

  it('refuses an expired code, and only the newest code counts', async () => {
    const merchant = await stack.createMerchant();
    const person = await addPerson(stack.db, merchant.platformUuid, 'owner', email('owner'));
    const browser = client();
    await askForCode(browser, person.email);
    const first = await mailedCode(person.email);
    await browser.post('/dashboard/sign-in/email-code', { email: person.email, side: 'merchant' });
    const second = await mailedCode(person.email, 1);
    if (first !== second) {
      const replaced = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code: first });
      expect(replaced.status).toBe(401);
    }
    await stack.db`update dashboard_sign_in_codes set expires_at = now() - interval '1 second' where email = ${person.email}`;
    const expired = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code: second });
    expect(expired.status).toBe(401);
    expect(expired.body).toContain('This code has expired or was already used');
    expect(browser.jar.has('dashboard_session')).toBe(false);

    // Codes a day past their expiry are deleted as a new one is made.
    await stack.db`update dashboard_sign_in_codes set expires_at = now() - interval '25 hours' where email = ${person.email}`;
    await browser.post('/dashboard/sign-in/email-code', { email: person.email, side: 'merchant' });
    expect(await stack.db`select expires_at > now() as live from dashboard_sign_in_codes where email = ${person.email}`).toEqual([{ live: true }]);
  });

  it('answers an unknown address as a known one, sends it nothing, and counts it against the same limits', async () => {
    const merchant = await stack.createMerchant();
    const known = await addPerson(stack.db, merchant.platformUuid, 'support', email('known'));
    const unknown = email('nobody');
    const answers = [];
    for (const address of [known.email, unknown]) {
      const browser = client();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await askForCode(browser, address)).status);
      const fourth = await askForCode(browser, address);
      statuses.push(fourth.status);
      expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(fourth.body).toContain('Too many codes asked for');
      // A wrong code: the same words whoever the address is.
      const wrong = await browser.post('/dashboard/sign-in/email-code/verify', { email: address, side: 'merchant', code: '999999x' });
      const page = (body: string) => body.replace(/name="csrf" value="[^"]+"/g, '').replaceAll(address, 'ADDRESS');
      answers.push({ statuses, wrong: wrong.status, page: page(wrong.body) });
    }
    expect(answers[0]!.statuses).toEqual([200, 200, 200, 429]);
    expect(answers[1]).toEqual(answers[0]);
    await waitFor(async () => ((await readDashboardMail(stack.db, stack.config.keyring, known.email)).length === 3 ? true : undefined));
    expect(await readDashboardMail(stack.db, stack.config.keyring, unknown)).toEqual([]);
  });

  it('limits the codes one client address asks for, whatever the addresses', async () => {
    const browser = client();
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await askForCode(browser, email('spray'))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    // Another address is not held back by this one.
    expect((await askForCode(client(), email('other'))).status).toBe(200);
  });

  it('refuses what is not an email address, beside the field', async () => {
    const refused = await askForCode(client(), 'not-an-address');
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('Enter the email address you were invited with');
    expect(refused.body).toContain('aria-invalid="true"');
  });

  it('lets an email on two teams choose which to sign in to', async () => {
    const address = email('two-teams');
    const first = await stack.createMerchant({ name: 'First Team Store' });
    const second = await stack.createMerchant({ name: 'Second Team Store' });
    await addPerson(stack.db, first.platformUuid, 'analyst', address);
    const member = await addPerson(stack.db, second.platformUuid, 'support', address);
    const browser = client();
    await askForCode(browser, address);
    const chooser = await browser.post('/dashboard/sign-in/email-code/verify', { email: address, side: 'merchant', code: await mailedCode(address) });
    expect(chooser.status).toBe(200);
    expect(chooser.body).toContain('First Team Store, as analyst');
    const form = chooser.body.split('<form').find((f) => f.includes('Second Team Store, as support'))!;
    const choice = /name="choice" value="([^"]+)"/.exec(form)![1]!;
    const signedIn = await browser.post('/dashboard/sign-in/email-code/team', { choice });
    expect(signedIn.status).toBe(303);
    const [session] = await stack.db<{ platform_uuid: string }[]>`
      select platform_uuid from dashboard_sessions where user_id = ${member.id} and ended_at is null`;
    expect(session!.platform_uuid).toBe(second.platformUuid);
    const other = client();
    await other.get('/dashboard/sign-in');
    const forged = await other.post('/dashboard/sign-in/email-code/team', { choice: choice.replace(/.$/, (c) => (c === '0' ? '1' : '0')) });
    expect(forged.status).toBe(401);
    expect(other.jar.has('dashboard_session')).toBe(false);
  });

  it("signs an operator in from the operators' page, and keeps the two sides apart", async () => {
    const merchant = await stack.createMerchant();
    const operator = await addPerson(stack.db, null, 'operator', email('operator'));
    const member = await addPerson(stack.db, merchant.platformUuid, 'owner', email('member'));
    const browser = client();
    await askForCode(browser, operator.email, 'operator');
    const signedIn = await browser.post('/dashboard/sign-in/email-code/verify', {
      email: operator.email,
      side: 'operator',
      code: await mailedCode(operator.email),
    });
    expect(signedIn.status).toBe(303);
    expect((await browser.get('/dashboard/operator')).status).toBe(200);

    // A merchant's member asking on the operators' page gets the same answer, and no mail.
    const asked = await askForCode(client(), member.email, 'operator');
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('we emailed it a six-digit code');
    // Asked on their own side, the one mail that comes is that one.
    await askForCode(client(), member.email);
    await mailedCode(member.email);
    expect(await readDashboardMail(stack.db, stack.config.keyring, member.email)).toHaveLength(1);
  });

  it('emails an invitation from the People page, the link the page shows once', async () => {
    const merchant = await stack.createMerchant({ name: 'Inviting Store' });
    const owner = client();
    await owner.signIn(merchant.apiKey);
    await owner.get('/dashboard/people');
    const invitee = email('invitee');
    const invited = await owner.post('/dashboard/people/invitations', { email: invitee, role: 'support' });
    expect(invited.status).toBe(201);
    expect(invited.body).toContain('We emailed them this link');
    const shown = /<code class="invitation-link">([^<]+)<\/code>/.exec(invited.body)![1]!;
    const [mail] = await readDashboardMail(stack.db, stack.config.keyring, invitee);
    expect(mail).toMatchObject({ kind: 'invitation', secret: shown });
  });
});
