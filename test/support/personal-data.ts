/**
 * What may never be shown to an operator in the Temporal UI's summaries and details: a contact, a
 * one-time code or its hash, a card number (brand and last 4 are fine) or a card token. Names what it
 * found, so a failure says which.
 */
export function personalDataIn(text: string): string[] {
  return [
    /[^\s@]+@[^\s@]+\.[^\s@]+/.test(text) && 'an email address',
    /\+?\d[\d\s().-]{6,}\d/.test(text) && 'a phone number or a card number',
    /\b\d{6}\b/.test(text) && 'a one-time code',
    /(?<![A-Za-z0-9_-])card_[A-Za-z0-9_-]{16,}/.test(text) && 'a card token',
    /\b[0-9a-f]{64}\b/.test(text) && 'a code hash',
  ].filter((found): found is string => typeof found === 'string');
}
