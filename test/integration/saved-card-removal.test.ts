import { describe, expect, it } from 'vitest';
import { readContact } from '../../core/checkout/contact-input.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { sandboxChargesIn } from '../../core/checkout/payment-processors/sandbox-charges.js';
import { confirmSavedCards, recordPendingSavedCard } from '../../core/checkout/saved-cards.js';
import { ensureSavedCardRemovalSchedule } from '../../workflows/saved-card-removal/client.js';
import { operatorApi } from '../support/operator.js';
import { useOwnDatabase } from '../support/own-database.js';
import { seedSavedCard } from '../support/saved-cards.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** Seconds a saved card may go unused in this file: its 13 months, short enough to wait out. */
const UNUSED_SECONDS = 8;

describe('saved cards do not outlive their use: the removal schedule and the operator erase', () => {
  // The removal takes every stale card of its database: one of its own keeps the other files' cards out of reach.
  const database = useOwnDatabase('saved_card_removal');
  const stack = useTestStack({ DATABASE_URL: database.url, SAVED_CARDS_UNUSED_SECONDS: String(UNUSED_SECONDS) });
  const operator = operatorApi(stack);

  const keyOf = (contact: string) => savedCardContactKey(stack.config.keyring, readContact(contact)!.contact.address);
  const cardsOf = (contact: string) => stack.db<{ id: string; removed: boolean }[]>`
    select id, removed_at is not null as removed from saved_cards where contact_key = ${keyOf(contact)} order by created_at`;
  const detached = async () =>
    (await stack.db<{ reference: string }[]>`select reference from sandbox_payment_methods where detached_at is not null`).map((r) => r.reference);

  it('removes, on the schedule, a card unused too long and one past its expiry, detaching each; a card in use stays', async () => {
    await seedSavedCard(stack, 'old@example.com', '4111111111111111', 'old-checkout');
    // A card whose expiry month has passed, saved before it did.
    await sandboxChargesIn(stack.db).savePaymentMethod('pm_sbx_expired', 'approved');
    await recordPendingSavedCard(stack.db, {
      contactKey: keyOf('expired@example.com'),
      cartId: 'expired-checkout',
      processor: 'sandbox',
      reference: { paymentMethodRef: 'pm_sbx_expired' },
      brand: 'visa',
      last4: '4242',
      expMonth: 1,
      expYear: 2021,
    });
    await confirmSavedCards(stack.db, 'expired-checkout');
    await new Promise((resolve) => setTimeout(resolve, UNUSED_SECONDS * 1000 + 100));
    await seedSavedCard(stack, 'recent@example.com', '4111111111111111', 'recent-checkout');

    const schedule = await ensureSavedCardRemovalSchedule(stack.temporal.client, stack.config);
    // A second worker starting finds the schedule there instead of failing.
    expect((await ensureSavedCardRemovalSchedule(stack.temporal.client, stack.config)).scheduleId).toBe(schedule.scheduleId);
    expect((await schedule.describe()).action).toMatchObject({ type: 'startWorkflow', workflowType: 'removeSavedCards' });
    await schedule.trigger();
    await waitFor(async () => ((await cardsOf('old@example.com')).length === 0 && (await cardsOf('expired@example.com')).length === 0 ? true : undefined), {
      what: 'the removal run to delete the stale cards',
    });
    expect(await detached()).toEqual(expect.arrayContaining([expect.stringMatching(/^pm_sbx_/), 'pm_sbx_expired']));
    expect(await cardsOf('recent@example.com')).toEqual([{ id: expect.any(String) as string, removed: false }]);
    await schedule.delete();
  });

  it('erases everything saved for a contact on an operator’s request, by any spelling of it', async () => {
    await seedSavedCard(stack, 'jane.doe@gmail.com', '4111111111111111', 'jane-1');
    await seedSavedCard(stack, 'jane.doe@gmail.com', '4000000000003055', 'jane-2');
    await seedSavedCard(stack, 'someone.else@example.com', '4111111111111111', 'someone-1');
    const schedule = await ensureSavedCardRemovalSchedule(stack.temporal.client, stack.config);

    const refused = await operator('POST', '/saved-cards/erase', { contact: 'not a contact' });
    expect(refused.status).toBe(400);

    // Gmail ignores dots and +tags: the same mailbox, as the code limits count it.
    const erased = await operator('POST', '/saved-cards/erase', { contact: 'JaneDoe+shop@googlemail.com' });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toEqual({ removed: 2, detaching: 'now' });
    await waitFor(async () => ((await cardsOf('jane.doe@gmail.com')).length === 0 ? true : undefined), { what: 'the erased cards detached and deleted' });
    expect(await cardsOf('someone.else@example.com')).toHaveLength(1);
    await schedule.delete();
  });

  it('turns a merchant’s saved cards off and on through the operator API', async () => {
    const { platformUuid } = await stack.createMerchant();
    const off = await operator('PUT', `/merchants/${platformUuid}/saved-cards`, { savedCardsAllowed: false });
    expect([off.status, await off.json()]).toEqual([200, expect.objectContaining({ platformUuid, savedCardsAllowed: false })]);
    const bad = await operator('PUT', `/merchants/${platformUuid}/saved-cards`, { savedCardsAllowed: 'no' });
    expect(bad.status).toBe(400);
    const on = await operator('PUT', `/merchants/${platformUuid}/saved-cards`, { savedCardsAllowed: true });
    expect(await on.json()).toMatchObject({ savedCardsAllowed: true });
  });
});
