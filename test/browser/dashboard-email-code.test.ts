/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { readDashboardMail } from '../../core/people/mail/outbox.js';
import { expectAccessible } from '../support/accessible-widths.js';
import { launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A support agent invited by email, in Chromium: the invitation is read from the sandbox outbox, a
 * passkey enrolled on a virtual authenticator (the DevTools protocol's WebAuthn domain); then, on a new
 * browser with no authenticator (a lost phone, a new laptop), they sign in with a code emailed to them,
 * create a passkey there, and sign in with it; wrong codes are refused in words and too many lock the
 * code. The audit log shows each sign-in and refusal as theirs.
 */
describe.skipIf(skipWithoutChromium())('dashboard sign-in with an emailed code, in a browser', () => {
  // Passkeys take no IP address as their relying party: the dashboard is on http://localhost.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true, checkoutHostname: 'localhost' });
  let browser: Browser;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];
  const base = () => stack.config.checkoutBaseUrl;

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await stack.createMerchant({ name: 'Mail Store' });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const watched = opened.splice(0);
    await Promise.all(watched.map((w) => w.context.close()));
    // Refusals (a wrong code: 401; too many: 429) are the dashboard answering in words; Chromium logs their status.
    const errors = watched.flatMap((w) => w.consoleErrors).filter((e) => !/status of (401|429)/.test(e));
    expect(errors, 'console errors (CSP violations land here)').toEqual([]);
  });

  /** A new browser context: no cookies, no authenticator. */
  async function watch(): Promise<Page> {
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    return watched.page;
  }

  async function withAuthenticator(page: Page) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
  }

  /** The newest mail of a kind the sandbox outbox holds for an address, once there are `count` of them. */
  const mail = (address: string, kind: 'sign_in_code' | 'invitation', count = 1) =>
    waitFor(async () => {
      const mails = (await readDashboardMail(stack.db, stack.config.keyring, address)).filter((m) => m.kind === kind);
      return mails.length >= count ? mails[0]!.secret : undefined;
    });

  async function askForCode(page: Page, address: string) {
    await page.goto(`${base()}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(address);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.waitForURL(/\/dashboard\/sign-in\/email-code$/);
  }

  it('invites by email, enrols a passkey, signs in on a new browser with an emailed code, adds a passkey there, and audits it all', async () => {
    const agentEmail = `agent-${crypto.randomUUID()}@example.com`;

    // The owner invites: the page shows the link once and says it was emailed.
    const owner = await watch();
    await owner.goto(`${base()}/dashboard/sign-in`);
    await owner.getByLabel('API key').fill(merchant.apiKey);
    await owner.getByRole('button', { name: 'Sign in', exact: true }).click();
    await owner.waitForURL(/\/dashboard\/orders$/);
    await owner.goto(`${base()}/dashboard/people`);
    await owner.getByLabel('Email').fill(agentEmail);
    await owner.getByLabel('Role').selectOption('support');
    await owner.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => owner.locator('main').textContent()).toContain('We emailed them this link');

    // The agent reads the invitation in their mail (the sandbox outbox) and enrols a passkey.
    const link = await mail(agentEmail, 'invitation');
    expect(link).toBe((await owner.locator('.invitation-link').textContent())!.trim());
    const phone = await watch();
    await withAuthenticator(phone);
    await phone.goto(link);
    await phone.getByRole('button', { name: 'Create a passkey and join' }).click();
    await phone.waitForURL(/\/dashboard\/orders$/);

    // A new laptop, no passkey on it: a code by email. A wrong one first, refused in words.
    const laptop = await watch();
    await askForCode(laptop, agentEmail);
    await expectAccessible(laptop, 'enter your code');
    await laptop.getByLabel('Code').fill('12345x');
    await laptop.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => laptop.locator('#sign-in-code-error').textContent()).toContain('That is not the code we sent: 4 tries left.');
    await expectAccessible(laptop, 'enter your code, a wrong one refused');
    await laptop.getByLabel('Code').fill(await mail(agentEmail, 'sign_in_code'));
    await laptop.getByRole('button', { name: 'Sign in', exact: true }).click();
    await laptop.waitForURL(/\/dashboard\/account$/);
    await expectAccessible(laptop, 'your account, signed in with a code');

    // A passkey on the laptop, made from that session; then signed out and in again with it.
    const laptopKeys = await withAuthenticator(laptop);
    await laptop.getByRole('button', { name: 'Create a passkey on this device' }).click();
    await expect.poll(() => laptop.getByRole('button', { name: /^Delete the passkey made/ }).count()).toBe(2);
    expect(await laptopKeys.credentials()).toHaveLength(1);
    await laptop.getByRole('button', { name: 'Sign out' }).click();
    await laptop.waitForURL(/\/dashboard\/sign-in$/);
    await laptop.getByRole('button', { name: 'Use a passkey' }).click();
    await laptop.waitForURL(/\/dashboard\/orders$/);

    // Someone else tries codes for the agent's address: five wrong ones spend the code, the sixth is refused.
    const stranger = await watch();
    await askForCode(stranger, agentEmail);
    for (let i = 0; i < 5; i++) {
      await stranger.getByLabel('Code').fill('000000');
      await stranger.getByRole('button', { name: 'Sign in', exact: true }).click();
      await stranger.waitForLoadState();
    }
    await stranger.getByLabel('Code').fill('000000');
    await stranger.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => stranger.locator('#sign-in-code-error').textContent()).toContain('Too many wrong codes: this code no longer works');
    await expectAccessible(stranger, 'enter your code, locked');

    // The audit log, as the owner reads it: every sign-in and the refusal, with the agent as actor.
    await owner.goto(`${base()}/dashboard/audit?actor=${encodeURIComponent(agentEmail)}`);
    const rows = await owner
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => `${tr.querySelector('[data-audit-action]')?.textContent?.trim()} by ${tr.querySelector('[data-audit-actor]')?.textContent?.trim()}`),
      );
    const who = `Who${agentEmail}`;
    expect(rows.reverse()).toEqual([
      `Actionperson.join by ${who}`,
      `Actionperson.passkey_add by ${who}`,
      `Actionperson.sign_in by ${who}`,
      `Actionperson.passkey_add by ${who}`,
      `Actionperson.sign_out by ${who}`,
      `Actionperson.sign_in by ${who}`,
      `Actionperson.sign_in_refused by ${who}`,
    ]);
    const methods = await stack.db<{ action: string; after: { method?: string } | null }[]>`
      select action, after from audit_log where actor_label = ${agentEmail} and action in ('person.sign_in', 'person.sign_in_refused') order by at, id`;
    expect(methods.map((m) => `${m.action} ${m.after?.method}`)).toEqual([
      'person.sign_in email_code',
      'person.sign_in passkey',
      'person.sign_in_refused email_code',
    ]);
  }, 180_000);
});
