/** A saved card's id (table `saved_cards`, core/checkout/saved-cards.ts): what the page's form and the pay update name it by. Workflow-safe. */
export const SAVED_CARD_ID_PATTERN = /^sc_[A-Za-z0-9_-]{24}$/;
