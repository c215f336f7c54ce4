import type { CheckoutSession } from '../load-session.js';
import type { SavedCard } from '../../../core/checkout/saved-cards.js';

export type FieldName = 'contact' | 'code' | 'number' | 'expiry' | 'cvv';

/** What one rendering of the step panel needs besides the session. */
export interface StepView {
  session: CheckoutSession;
  /** The language the page speaks (web/i18n). */
  locale: string;
  csrf: string;
  sandbox: { otp: string } | undefined;
  errors?: Partial<Record<FieldName | 'form', string>>;
  notice?: string;
  /** Typed values worth keeping on an error; never the card number or the CVV. */
  values?: { contact?: string; expiry?: string; remind?: boolean };
  /**
   * Set once a payment has waited longer than PAYMENT_CONFIRMATION_WAIT_SECONDS for its outcome: the
   * page stops holding the customer and says the outcome will follow, with the way back to the store.
   */
  stillConfirming?: { returnUrl: string };
  /**
   * At the card step only, so after the code, at a merchant that allows saved cards
   * (docs/saved-cards.md): the verified contact's saved cards, most recently used first, and the
   * consent to save the typed card. Absent: nothing of saved cards shows.
   */
  savedCards?: { cards: SavedCard[]; offerSave: boolean };
  /**
   * Set when this browser is not the one that verified the code (web/checkout/browser-binding.ts): in
   * place of the step, the way to act here, a fresh code to the verified contact.
   */
  rebind?: true;
  /** The page is shown in the merchant's frame (web/checkout/embedding.ts): it speaks to the merchant's page by messages. */
  embedded?: true;
}
