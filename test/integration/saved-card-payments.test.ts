import { beforeAll, describe, expect, it } from 'vitest';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { savedCardsOf } from '../../core/checkout/saved-cards.js';
import { insightFunnel } from '../../core/insights/insights.js';
import { funnelView } from '../../web/dashboard/views/insights.js';
import { sandboxChargesIn } from '../../core/checkout/payment-processors/sandbox-charges.js';
import { threeDSecureReturnUpdate, type CartSessionState } from '../../workflows/cart-session/messages.js';
import { cartSessionDriver, type Session } from '../support/cart-session-driver.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * A saved card pays only in a session where its own contact was verified (docs/saved-cards.md): the
 * worker checks the card against the contact key the session verified, whatever id it is handed.
 */
describe('saved cards pay only for the contact that saved them', () => {
  const stack = useTestStack();
  let driver: ReturnType<typeof cartSessionDriver>;
  let platformUuid: string;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant()).platformUuid;
    driver = cartSessionDriver(stack, platformUuid);
  });

  /** A session verified by `contact` with its key, as the page sends it. */
  async function verifiedAs(contact: string): Promise<Session> {
    const session = await driver.createSession();
    await driver.sendCode(session, contact, { cardKey: savedCardContactKey(stack.config.keyring, contact) });
    await driver.verify(session, await driver.sentCode(session));
    return session;
  }

  const charges = async (cartId: string) =>
    (await stack.db<{ n: number }[]>`select count(*)::int as n from sandbox_charges where idempotency_key = ${cartId}`)[0]!.n;

  it('saves on consent, pays with it for the same contact, and refuses it to another contact’s session without charging', async () => {
    const owner = 'owner-saved-payments@example.com';
    const saving = await verifiedAs(owner);
    const card = await driver.vaultCard(saving, '4111 1111 1111 1111');
    expect(await driver.payWith(saving, { ...card, save: true })).toMatchObject({ status: 'paid', payment: { savedCard: false } });
    const [saved] = await savedCardsOf(stack.db, savedCardContactKey(stack.config.keyring, owner), 'sandbox');
    expect(saved).toMatchObject({ brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030 });

    const again = await verifiedAs(owner);
    expect(await driver.payWith(again, { savedCardId: saved!.id, brand: 'visa', last4: '1111' })).toMatchObject({
      status: 'paid',
      payment: { last4: '1111', savedCard: true },
    });
    expect(await charges(again.cartId)).toBe(1);

    const stranger = await verifiedAs('stranger-saved-payments@example.com');
    const refused = await driver.payWith(stranger, { savedCardId: saved!.id, brand: 'visa', last4: '1111' });
    expect(refused).toMatchObject({ status: 'failed', failureCode: 'card_unavailable' });
    expect(await charges(stranger.cartId)).toBe(0);

    // The merchant's insights: one of its two payments was made with a saved card.
    const funnel = await insightFunnel(stack.db, { merchant: { platformUuid, environment: stack.config.environment }, days: 1 });
    expect(funnel.savedCards).toEqual({ paid: 2, withSavedCard: 1, share: 0.5 });
    expect(String(await funnelView(funnel))).toContain('Paid with a saved card: 1 of 2 payments');
  });

  /** The customer completes their bank's challenge (the sandbox's page) and comes back: the session's outcome. */
  async function passChallenge(session: Session, waiting: CartSessionState) {
    expect(waiting.step).toBe('authenticating');
    const chargeId = new URL(waiting.authentication!.redirectUrl).searchParams.get('payment')!;
    await sandboxChargesIn(stack.db).answerAuthentication(chargeId, 'authenticated');
    return session.handle.executeUpdate(threeDSecureReturnUpdate, { updateId: `three-d-secure-return-${session.cartId}` });
  }

  it('3-D Secure still applies: a card whose bank challenges is saved once the challenge passed, and challenged again when paid with saved', async () => {
    const contact = 'challenged-saved-payments@example.com';
    const key = savedCardContactKey(stack.config.keyring, contact);
    const saving = await verifiedAs(contact);
    const card = await driver.vaultCard(saving, '4000 0027 6000 3184');
    const waiting = await driver.payWith(saving, { ...card, save: true });
    // Not offered while its payment waits at the bank.
    expect(await savedCardsOf(stack.db, key, 'sandbox')).toEqual([]);
    expect(await passChallenge(saving, waiting)).toMatchObject({ status: 'paid', payment: { threeDSecure: { result: 'authenticated' } } });
    const [saved] = await savedCardsOf(stack.db, key, 'sandbox');
    expect(saved).toMatchObject({ last4: '3184' });

    const again = await verifiedAs(contact);
    const challenged = await driver.payWith(again, { savedCardId: saved!.id, brand: 'visa', last4: '3184' });
    expect(await passChallenge(again, challenged)).toMatchObject({
      status: 'paid',
      payment: { last4: '3184', savedCard: true, threeDSecure: { result: 'authenticated' } },
    });
  });

  it('a declined card is not saved', async () => {
    const contact = 'declined-saved-payments@example.com';
    const session = await verifiedAs(contact);
    const card = await driver.vaultCard(session, '4000 0000 0000 0002');
    expect(await driver.payWith(session, { ...card, save: true })).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    expect(await savedCardsOf(stack.db, savedCardContactKey(stack.config.keyring, contact), 'sandbox')).toEqual([]);
  });
});
