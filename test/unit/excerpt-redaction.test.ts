import { describe, expect, it } from 'vitest';
import { CONTACT_PLACEHOLDER, redactContact } from '../../core/webhooks/excerpt-redaction.js';

const email = { email: 'jane.doe+shop@example.com' };
const phone = { phone: '+33612345678' };
const R = CONTACT_PLACEHOLDER;

describe('redactContact: the order’s contact never stays in a response excerpt', () => {
  it.each([
    ['verbatim in echoed JSON', '{"customer":{"email":"jane.doe+shop@example.com"}}', `{"customer":{"email":"${R}"}}`],
    ['in another case', 'unknown JANE.DOE+SHOP@Example.COM', `unknown ${R}`],
    ['JSON-escaped', '"jane.doe+shop\\u0040example.com" "jane.doe\\u002Bshop\\u0040example\\u002ecom"', `"${R}" "${R}"`],
    ['URL-encoded, either case of hex', 'email=jane.doe%2Bshop%40example.com&x=jane.doe%2bshop%40EXAMPLE.com', `email=${R}&x=${R}`],
    ['as HTML character references', '<p>jane.doe&#43;shop&#x40;example.com</p>', `<p>${R}</p>`],
    ['cut at the end of the excerpt', 'bad request: jane.doe+sh', `bad request: ${R}`],
  ])('redacts an email %s', (_, excerpt, expected) => {
    expect(redactContact(excerpt, email)).toBe(expected);
  });

  it('keeps what is not the contact: the rest of the answer, another address, a short tail that merely starts like it', () => {
    expect(redactContact('jane.doe@example.com rejected; jane', email)).toBe('jane.doe@example.com rejected; jane');
  });

  it.each([
    ['verbatim', '{"phone":"+33612345678"}', `{"phone":"${R}"}`],
    ['URL-encoded', 'phone=%2B33612345678', `phone=${R}`],
    ['with separators', 'call +33 6 12 34 56 78 or +33.6.12.34.56.78', `call ${R} or ${R}`],
    ['JSON-escaped', '"\\u002b33612345678"', `"${R}"`],
  ])('redacts a phone number %s', (_, excerpt, expected) => {
    expect(redactContact(excerpt, phone)).toBe(expected);
  });

  it('searches an answer the endpoint wrote to be slow to search in linear time: 20 KiB of separators', () => {
    for (const answer of ['+ '.repeat(10_240), '+'.repeat(20_480), '&#0'.repeat(6_800)]) {
      const started = performance.now();
      expect(redactContact(answer, phone)).toBe(answer);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });

  it('leaves an excerpt alone without a contact, and no excerpt as none', () => {
    expect(redactContact('jane.doe+shop@example.com', null)).toBe('jane.doe+shop@example.com');
    expect(redactContact(undefined, email)).toBeUndefined();
  });
});
