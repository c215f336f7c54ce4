/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { expectAccessible } from '../support/accessible-widths.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * A merchant's team in Chromium, with a virtual WebAuthn authenticator (the DevTools protocol's
 * WebAuthn domain) standing in for the support agent's phone: invited by the owner, they enrol a
 * passkey, sign in with it, refund within their limit, are refused above it and at webhook settings,
 * and are signed out everywhere when the owner removes them; each step is in the audit log.
 */
describe.skipIf(skipWithoutChromium())('a merchant team in a browser, with passkeys', () => {
  // Passkeys take no IP address as their relying party: the dashboard is on http://localhost.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true, checkoutHostname: 'localhost' });
  let browser: Browser;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];
  const base = () => stack.config.checkoutBaseUrl;

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await stack.createMerchant({ name: 'Team Store' });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const watched = opened.splice(0);
    await Promise.all(watched.map((w) => w.context.close()));
    // Refusals (a removed passkey: 401; 403, 422; an invitation used: 410) are the dashboard answering in words; Chromium logs their status.
    const errors = watched.flatMap((w) => w.consoleErrors).filter((e) => !/status of (401|403|410|422)/.test(e));
    expect(errors, 'console errors (CSP violations land here)').toEqual([]);
  });

  async function watch(): Promise<Page> {
    const watched = await openPage(browser, { width: 1280 });
    opened.push(watched);
    return watched.page;
  }

  /** This browser's own authenticator: resident keys, user verification, presence simulated. */
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

  const actions = async (target: string) =>
    (
      await stack.db<{ action: string; actor_type: string; actor_label: string | null }[]>`
        select action, actor_type, actor_label from audit_log where platform_uuid = ${merchant.platformUuid} and target like ${target} order by at, id`
    ).map((r) => `${r.action} by ${r.actor_type} ${r.actor_label ?? ''}`.trim());

  it('invites a support agent who enrols a passkey, refunds within the limit only, is kept out of webhooks, and is removed', async () => {
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = await driver.verifiedSession();
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');

    // The owner, signed in with the API key (the bootstrap), sets the limit and invites.
    const owner = await watch();
    await owner.goto(`${base()}/dashboard/sign-in`);
    await expectAccessible(owner, 'sign-in with passkey and API key');
    await owner.getByLabel('API key').fill(merchant.apiKey);
    await owner.getByRole('button', { name: 'Sign in', exact: true }).click();
    await owner.waitForURL(/\/dashboard\/orders$/);
    await owner.goto(`${base()}/dashboard/people`);
    await expectAccessible(owner, 'people');
    await owner.getByLabel('Currency').fill('EUR');
    await owner.getByLabel('Most support may refund at once').fill('5.00');
    await owner.getByRole('button', { name: 'Set the limit' }).click();
    await expect.poll(() => owner.locator('main').textContent()).toContain('EUR: up to €5.00');
    await owner.getByLabel('Email').fill('Agent@Example.com');
    await owner.getByLabel('Role').selectOption('support');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = (await owner.locator('.invitation-link').textContent())!.trim();
    expect(link).toMatch(/\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    await expectAccessible(owner, 'people, someone invited');
    expect(await owner.getByRole('region', { name: 'Invitations not yet accepted' }).textContent()).toContain('agent@example.com');

    // The agent opens the link on their own device and enrols a passkey.
    const agent = await watch();
    const authenticator = await withAuthenticator(agent);
    await agent.goto(link);
    await expectAccessible(agent, 'invitation');
    await agent.getByRole('button', { name: 'Create a passkey and join' }).click();
    await agent.waitForURL(/\/dashboard\/orders$/);
    expect(await authenticator.credentials()).toHaveLength(1);
    // The link worked once.
    const again = await agent.goto(link);
    expect(again?.status()).toBe(410);

    // Signed out, then in again with the passkey alone.
    await agent.goto(`${base()}/dashboard/orders`);
    await agent.getByRole('button', { name: 'Sign out' }).click();
    await agent.waitForURL(/\/dashboard\/sign-in$/);
    await agent.getByRole('button', { name: 'Use a passkey' }).click();
    await agent.waitForURL(/\/dashboard\/orders$/);

    // A refund within the limit, then one above it.
    await agent.goto(`${base()}/dashboard/orders/${session.cartId}`);
    await expectAccessible(agent, 'order, as support');
    await agent.getByLabel('Amount (EUR)').fill('2.00');
    await agent.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => agent.locator('[data-order-status]').getAttribute('data-order-status'), { timeout: 15_000 }).toBe('partially_refunded');
    await agent.getByLabel('Amount (EUR)').fill('6.00');
    await agent.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => agent.locator('#refund-amount-error').textContent()).toContain('Not allowed: your role, support, may refund at most €5.00 at once');
    await expectAccessible(agent, 'refund above the limit refused');
    expect(await agent.locator('[data-refunded-total]').getAttribute('data-refunded-total')).toBe('200');

    // Webhook settings are not support's: a 403 page that says so.
    const refused = await agent.goto(`${base()}/dashboard/webhooks`);
    expect(refused?.status()).toBe(403);
    expect(await agent.locator('main').textContent()).toContain('Your role, support, does not allow this: webhook settings');
    await expectAccessible(agent, 'refused page');

    // The owner removes the agent: every session of theirs ends at once, and the passkey no longer signs in.
    await owner.goto(`${base()}/dashboard/people`);
    await owner.getByRole('button', { name: 'Remove agent@example.com' }).click();
    await expect.poll(() => owner.locator('main').textContent()).toContain('agent@example.com was removed and signed out everywhere');
    const [open] = await stack.db<{ count: string }[]>`
      select count(*) from dashboard_sessions s join dashboard_users u on u.id = s.user_id
       where u.email = 'agent@example.com' and u.platform_uuid = ${merchant.platformUuid} and s.ended_at is null`;
    expect(Number(open!.count)).toBe(0);
    await agent.goto(`${base()}/dashboard/orders`);
    await agent.waitForURL(/\/dashboard\/sign-in$/);
    await agent.getByRole('button', { name: 'Use a passkey' }).click();
    await expect.poll(() => agent.locator('#passkey-sign-in-status').textContent()).toContain('This passkey is not one of ours');

    // Every step, with its actor.
    const [person] = await stack.db<
      { id: string }[]
    >`select id from dashboard_users where email = 'agent@example.com' and platform_uuid = ${merchant.platformUuid}`;
    expect(await actions(`person:${person!.id}`)).toEqual([
      'person.join by user agent@example.com',
      'person.sign_out by user agent@example.com',
      'person.sign_in by user agent@example.com',
      'person.remove by api_key Default',
    ]);
    expect(await actions('invitation:%')).toEqual(['person.invite by api_key Default']);
    expect(await actions(`order:${session.cartId}`)).toEqual(['order.refund by user agent@example.com']);
    expect(await actions('passkey:%')).toEqual(['person.passkey_add by user agent@example.com']);
  }, 180_000);
});
