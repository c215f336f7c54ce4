import type { Customer } from '../checkout/customer-seal.js';

/**
 * What an endpoint answered, as stored in `webhook_attempts.response_excerpt` and shown in the Order
 * API and the dashboard, never keeps the order's contact: an endpoint that echoes our body (a 400
 * with the request in it is common) would otherwise leave in clear the contact we keep sealed
 * everywhere else (docs/security.md). Every occurrence is replaced by CONTACT_PLACEHOLDER, found
 * character by character, each character in any of the forms an answer spells it in:
 * - as itself, in any case (an email is stored lower-cased; a receiver may upper-case it);
 * - JSON-escaped: `\uXXXX` (any case of hex), or a backslash before it (`\/`);
 * - URL-encoded: `%XX` (any case of hex), and `+` for a space;
 * - as an HTML character reference: `&#NN;` or `&#xHH;`;
 * and a phone number also with up to 3 spaces, dots, dashes or brackets between two of its
 * characters (`+33 6 12 34 56 78`). An answer cut at the excerpt's limit may end in the middle of the
 * contact: a cut of at least MIN_CUT characters at its very end is replaced too. What is not
 * redactable robustly stays: another spelling of the same contact (a national phone format, `+33 (0)6…`,
 * an email's local part alone), or a contact encoded as a whole (base64, a hash).
 */
export const CONTACT_PLACEHOLDER = '[contact redacted]';

/** Characters of a contact cut at the end of an excerpt, below which the cut is too short to tell from anything else. */
const MIN_CUT = 6;

const hex = (code: number) => code.toString(16);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One character of the contact, as a regular expression of every form above (case-insensitive as a whole). */
function characterForms(ch: string): string {
  const code = ch.codePointAt(0)!;
  const forms = [escapeRegExp(ch)];
  if (code <= 0xffff) forms.push(`\\\\u0{0,${4 - hex(code).length}}${hex(code)}`);
  if (!/[a-z0-9]/i.test(ch)) forms.push(`\\\\${escapeRegExp(ch)}`);
  // UTF-8 bytes, each %XX: an email's non-ASCII local part encoded by a form or a query string.
  forms.push([...Buffer.from(ch, 'utf8')].map((byte) => `%${hex(byte).padStart(2, '0')}`).join(''));
  if (ch === ' ') forms.push('\\+');
  forms.push(`&#0*${code};`, `&#x0*${hex(code)};`);
  return `(?:${forms.join('|')})`;
}

/**
 * The contact's pattern: its characters in order, a phone number's with a few separators allowed
 * between them. A few, not any number: the answer is the endpoint's to write, and an unbounded run of
 * separators would make a 20 KiB answer of them cost seconds to search.
 */
function contactPattern(contact: string, isPhone: boolean): string[] {
  const separator = isPhone ? '(?:[\\s.()-]|%20|\\+){0,3}' : '';
  return [...contact].map((ch, i) => (i === 0 ? '' : separator) + characterForms(ch));
}

/** `excerpt` with every occurrence of `customer`'s contact replaced; unchanged without an excerpt or a contact. */
export function redactContact(excerpt: string | undefined, customer: Customer | null | undefined): string | undefined {
  if (excerpt === undefined || !customer) return excerpt;
  const isPhone = 'phone' in customer;
  const contact = isPhone ? customer.phone : customer.email;
  if (!contact) return excerpt;
  const parts = contactPattern(contact, isPhone);
  // The whole contact anywhere, or a cut of it (at least MIN_CUT characters, as nested optional groups) at the very end.
  const cut = parts.slice(MIN_CUT).reduceRight((rest, part) => `(?:${part}${rest})?`, '');
  const whole = new RegExp(parts.join(''), 'giu');
  const atTheEnd = new RegExp(`${parts.slice(0, MIN_CUT).join('')}${cut}$`, 'iu');
  const redacted = excerpt.replace(whole, CONTACT_PLACEHOLDER);
  return contact.length > MIN_CUT ? redacted.replace(atTheEnd, CONTACT_PLACEHOLDER) : redacted;
}
