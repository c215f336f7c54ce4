export interface OtpMessage {
  cartId: string;
  channel: 'email' | 'sms';
  /** Normalized email or E.164 phone number. */
  address: string;
  /** Masked form of the address, the only one that may be logged. */
  addressHint: string;
  code: string;
}

/** Delivers a one-time code to the customer. Production plugs an SMS/email provider in here. */
export interface OtpSender {
  readonly name: string;
  send(message: OtpMessage): Promise<void>;
}
