export interface OtpMessage {
  cartId: string;
  channel: 'email' | 'sms';
  /** Normalized email or E.164 phone number. */
  address: string;
  /** Masked form of the address, the only one that may be logged. */
  addressHint: string;
  code: string;
  /**
   * The merchant's registered name (the merchants table's, kept on the cart row): messages speak in its
   * name. Never the request's `store.name`, which anyone creating a cart may fill with any text.
   */
  merchantName: string;
  /** How long the code works, for the message to say. */
  codeLifetimeMs: number;
  /** The language of the page that asked for the code (web/i18n), for the message to speak; English when absent or unknown. */
  locale?: string;
}

/** Delivers a one-time code to the customer. Production plugs an SMS/email provider in here. */
export interface OtpSender {
  readonly name: string;
  send(message: OtpMessage): Promise<void>;
}
