import { afterAll, describe, expect, it } from 'vitest';
import { readDashboardMail } from '../../core/people/mail/outbox.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { addPerson } from '../support/dashboard-people.js';
import { startSmtpCatcher } from '../support/otp-providers.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

const REFUSED = 'refused@example.com';
const smtp = await startSmtpCatcher({ reject: [REFUSED] });

/** With SMTP_URL set, the dashboard's mail (sign-in codes, invitations) really goes out, and nothing to the sandbox outbox. */
describe('dashboard mail over SMTP', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', SMTP_URL: smtp.url, OTP_EMAIL_FROM: 'Checkout <codes@pay.example>' });
  const client = () => dashboardClient(stack.checkoutUrl);
  const sentTo = (address: string) => waitFor(() => smtp.messages.find((m) => JSON.stringify(m.to ?? '').includes(address)), { what: `mail to ${address}` });
  afterAll(async () => {
    await smtp.close();
  });

  it('emails a sign-in code that signs the person in, with no link in it', async () => {
    const merchant = await stack.createMerchant();
    const person = await addPerson(stack.db, merchant.platformUuid, 'analyst', `smtp-${crypto.randomUUID()}@example.com`);
    const browser = client();
    await browser.get('/dashboard/sign-in');
    expect((await browser.post('/dashboard/sign-in/email-code', { email: person.email, side: 'merchant' })).status).toBe(200);
    const mail = await sentTo(person.email);
    expect(mail.from?.value).toEqual([{ name: 'Checkout', address: 'codes@pay.example' }]);
    const code = /^Your dashboard sign-in code: (\d{6})$/.exec(mail.subject ?? '')?.[1];
    expect(mail.text).toContain(`Your code to sign in to the dashboard: ${code}`);
    expect(mail.text).toContain('It works once, for 10 minutes.');
    expect(String(mail.html)).not.toMatch(/<a\s|https?:\/\//i);
    const signedIn = await browser.post('/dashboard/sign-in/email-code/verify', { email: person.email, side: 'merchant', code: code! });
    expect(signedIn.status).toBe(303);
    // Other files of the run share the database and fill the outbox: only this person's mail is looked for.
    expect(await readDashboardMail(stack.db, stack.config.keyring, person.email)).toEqual([]);
  });

  it("emails an invitation in the merchant's name, escaped, and says so when the server refuses the address", async () => {
    const merchant = await stack.createMerchant({ name: 'Mail <b>Store</b>' });
    const owner = client();
    await owner.signIn(merchant.apiKey);
    await owner.get('/dashboard/people');
    const invitee = `invitee-${crypto.randomUUID()}@example.com`;
    const invited = await owner.post('/dashboard/people/invitations', { email: invitee, role: 'developer' });
    const shown = /<code class="invitation-link">([^<]+)<\/code>/.exec(invited.body)![1]!;
    const mail = await sentTo(invitee);
    expect(mail.subject).toBe('You are invited to the dashboard of Mail <b>Store</b>');
    expect(mail.text).toContain(shown);
    expect(mail.text).toContain('with the role developer');
    expect(String(mail.html)).toContain('Mail &#60;b&#62;Store&#60;/b&#62;');
    expect(String(mail.html)).not.toContain('<b>Store</b>');

    const refused = await owner.post('/dashboard/people/invitations', { email: REFUSED, role: 'analyst' });
    expect(refused.status).toBe(201);
    expect(refused.body).toContain('The email to them could not be sent: give them this link yourself');
    expect(refused.body).toMatch(/<code class="invitation-link">[^<]+\/dashboard\/invitations\//);
  });
});
