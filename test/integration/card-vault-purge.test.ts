import { describe, expect, it } from 'vitest';
import { storeCard } from '../../core/checkout/card-vault.js';
import { checkCard } from '../../core/checkout/cards.js';
import { ensureCardVaultPurgeSchedule } from '../../workflows/card-vault-purge/client.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useOwnDatabase } from '../support/own-database.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

describe('no card outlives its session', () => {
  // The purge deletes every card past its age, whoever stored it: a database of its own keeps the
  // other files' cards (mid-payment in parallel) out of its reach. Sessions of 2 s and no margin, so a
  // card is past its purge age within seconds.
  const database = useOwnDatabase('card_vault_purge');
  const stack = useTestStack({ DATABASE_URL: database.url, SESSION_LIFETIME_SECONDS: '2', CARD_VAULT_PURGE_MARGIN_SECONDS: '0' });

  it('purges, on the schedule, the card of a session terminated mid-payment', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest((await stack.createMerchant()).platformUuid));
    const check = checkCard({ number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' }, new Date());
    if (!check.ok) throw new Error('the sandbox card must pass the checks');
    // As the page does on Pay; then the session dies before it could empty the vault.
    const { token } = await storeCard(stack.db, stack.config.keyring, cartId, check.card);
    await cartSessionHandle(stack.temporal.client, cartId).terminate('an operator stopped it mid-payment');
    const cards = () => stack.db<{ token: string }[]>`select token from card_vault where cart_id = ${cartId}`;
    expect(await cards()).toEqual([{ token }]);

    const schedule = await ensureCardVaultPurgeSchedule(stack.temporal.client, stack.config);
    // A second worker starting finds the schedule there instead of failing.
    expect((await ensureCardVaultPurgeSchedule(stack.temporal.client, stack.config)).scheduleId).toBe(schedule.scheduleId);
    const description = await schedule.describe();
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'purgeCardVault' });

    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await schedule.trigger();
    await waitFor(async () => ((await cards()).length === 0 ? true : undefined), { what: 'the purge to remove the card' });
    await schedule.delete();
  });
});
