import { readContact } from '../../core/checkout/contact-input.js';
import { savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { createSandboxPaymentProcessor } from '../../core/checkout/payment-processors/sandbox.js';
import { confirmSavedCards, recordPendingSavedCard } from '../../core/checkout/saved-cards.js';
import type { TestStack } from './test-stack.js';

/**
 * A customer who saved this sandbox card at an earlier checkout: saved through the sandbox processor
 * (its reference, never the number) to the contact's key, as the page and the worker compute it, and
 * confirmed as that checkout's approval confirms it. `key` names the earlier checkout.
 */
export async function seedSavedCard(stack: Pick<TestStack, 'db' | 'config'>, contact: string, pan: string, key: string): Promise<void> {
  const read = readContact(contact);
  if (!read) throw new Error(`${contact} is no contact`);
  const processor = createSandboxPaymentProcessor(stack.config.environment, { db: stack.db });
  const saved = await processor.saveCard!({
    idempotencyKey: key,
    card: { pan, brand: 'visa', last4: pan.slice(-4), expMonth: 12, expYear: 2030, cvv: '123' },
  });
  if (saved.outcome !== 'saved') throw new Error(`the sandbox refused to save ${pan}: ${saved.declineCode}`);
  const contactKey = savedCardContactKey(stack.config.keyring, read.contact.address);
  await recordPendingSavedCard(stack.db, { contactKey, cartId: key, processor: processor.name, ...saved });
  await confirmSavedCards(stack.db, key);
}
