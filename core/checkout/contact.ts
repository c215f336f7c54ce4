/** How the customer is reached with a one-time code. Workflow-safe: no imports. */

export interface ParsedContact {
  channel: 'email' | 'sms';
  /** The address as the code is sent to it: lower-cased email, or E.164 phone (`+33612345678`). */
  address: string;
  /** What the page may show back: `j***@example.com`, `•••• 5678`. */
  hint: string;
}

/** Email, or a phone number with its country code (`+` or `00`); spaces, dots, dashes, brackets allowed. */
export function parseContact(raw: string): ParsedContact | undefined {
  const value = raw.trim();
  if (value.includes('@')) {
    if (value.length > 254 || !/^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/.test(value)) return undefined;
    const [local = '', domain = ''] = value.toLowerCase().split('@');
    return { channel: 'email', address: `${local}@${domain}`, hint: `${local[0]}***@${domain}` };
  }
  const phone = value.replace(/[\s().-]/g, '').replace(/^00/, '+');
  if (!/^\+[1-9]\d{7,14}$/.test(phone)) return undefined;
  return { channel: 'sms', address: phone, hint: `•••• ${phone.slice(-4)}` };
}
