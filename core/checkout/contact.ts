/** How the customer is reached with a one-time code. Workflow-safe: no imports. */

export interface ParsedContact {
  channel: 'email' | 'sms';
  /** The address as the code is sent to it: lower-cased email, or E.164 phone (`+33612345678`). */
  address: string;
  /** What the page may show back: `j***@example.com`, `•••• 5678`. */
  hint: string;
}

// A bare mailbox: a dot-atom local part (RFC 5322 atext) and an ASCII host name (IDNA already applied,
// core/checkout/contact-input.ts). What mail software reads as a display name, comment, group, quoted
// local part or second recipient (`<>`, `()`, `""`, `,`, `;`, `:`, spaces) is refused, so the address
// counted is the one the mail server delivers to.
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A bare email address with an ASCII domain, or a phone number with its country code (`+` or `00`);
 * spaces, dots, dashes, brackets allowed. The page reads what the customer typed with
 * readContact (core/checkout/contact-input.ts), which also takes national numbers and IDN domains.
 */
export function parseContact(raw: string): ParsedContact | undefined {
  const value = raw.trim();
  if (value.includes('@')) {
    const [local = '', domain = '', ...more] = value.toLowerCase().split('@');
    if (more.length || value.length > 254 || local.length > 64 || domain.length > 253) return undefined;
    if (!LOCAL_PART.test(local) || !HOST_NAME.test(domain)) return undefined;
    return { channel: 'email', address: `${local}@${domain}`, hint: `${local[0]}***@${domain}` };
  }
  const phone = value.replace(/[\s().-]/g, '').replace(/^00/, '+');
  if (!/^\+[1-9]\d{7,14}$/.test(phone)) return undefined;
  return { channel: 'sms', address: phone, hint: `•••• ${phone.slice(-4)}` };
}

/** The order's customer (core/checkout/order-model.ts Customer) from the address a verified code went to. */
export function customerOf(address: string): { email: string } | { phone: string } {
  return address.includes('@') ? { email: address } : { phone: address };
}
