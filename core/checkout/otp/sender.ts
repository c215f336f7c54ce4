import type { Sql } from '../../db/client.js';

/** Who a message to the customer goes to, and in whose name and language it speaks. */
interface MessageTo {
  cartId: string;
  channel: 'email' | 'sms';
  /** Normalized email or E.164 phone number. */
  address: string;
  /** Masked form of the address, the only one that may be logged. */
  addressHint: string;
  /**
   * The merchant's registered name (the merchants table's, kept on the cart row): messages speak in its
   * name. Never the request's `store.name`, which anyone creating a cart may fill with any text.
   */
  merchantName: string;
  /** The language of the page the customer used (web/i18n), for the message to speak; English when absent or unknown. */
  locale?: string;
}

/** A one-time code for the checkout page that asked for it. */
export interface CodeMessage extends MessageTo {
  kind: 'code';
  code: string;
  /** How long the code works, for the message to say. */
  codeLifetimeMs: number;
}

/** Abandoned-cart recovery's one reminder (docs/abandoned-cart-recovery.md): the cart's recovery link. */
export interface ReminderMessage extends MessageTo {
  kind: 'reminder';
  recoveryUrl: string;
}

/** Everything the checkout sends the customer, by the channel of the contact they verified. */
export type CustomerMessage = CodeMessage | ReminderMessage;

/** Delivers codes and reminders to customers. Production plugs an SMS/email provider in here. */
export interface MessageSender {
  readonly name: string;
  /**
   * `within`: the transaction that records the message as sent (a reminder's claim). A sender that
   * delivers by writing to the database (the sandbox outbox) writes in it, so the message and its
   * record commit together or not at all; a provider outside the database has nothing to write there.
   */
  send(message: CustomerMessage, within?: Sql): Promise<void>;
}
