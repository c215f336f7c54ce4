import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readContact } from '../../core/checkout/contact-input.js';
import { foldMailbox } from '../../core/checkout/otp/destination.js';
import { savedCardContact } from '../../core/checkout/saved-card-contact.js';
import { browserBinding } from '../../web/checkout/browser-binding.js';

const exact = (raw: string) => savedCardContact(readContact(raw)!.contact.address);

/** Saved cards belong to the mailbox the provider delivers to, never to the code limits' broader fold (docs/saved-cards.md). */
describe('the contact saved cards are kept under', () => {
  it.each([
    ['Canary+someone-else@EXAMPLE.com', 'canary+someone-else@example.com'],
    ['j.doe@example.com', 'j.doe@example.com'],
    ['jane+x@hotmail.example', 'jane+x@hotmail.example'],
  ])('keeps %j as the mailbox %j where the provider is not known to fold', (raw, key) => {
    expect(exact(raw)).toBe(key);
  });

  it.each([
    ['J.Doe+shop@GoogleMail.com', 'jdoe@gmail.com'],
    ['jane.doe+shop@outlook.com', 'jane.doe@outlook.com'],
    ['jane.doe+shop@icloud.com', 'jane.doe@icloud.com'],
    ['jane+news@proton.me', 'jane@proton.me'],
  ])('folds %j to %j at a provider documented to ignore tags (and, at Gmail, dots)', (raw, key) => {
    expect(exact(raw)).toBe(key);
  });

  it('keeps a phone number as its E.164 form', () => {
    expect(exact('+33 6 12 34 56 78')).toBe('+33612345678');
  });

  it('never folds further than the code limits do', () => {
    const local = fc.stringMatching(/^[a-z0-9]{1,8}(\.[a-z0-9]{1,8})?(\+[a-z0-9]{1,8})?$/);
    const domain = fc.constantFrom('gmail.com', 'googlemail.com', 'outlook.com', 'example.com', 'corp.example');
    fc.assert(
      fc.property(local, domain, (l, d) => {
        const address = `${l}@${d}`;
        expect(foldMailbox(savedCardContact(address))).toBe(foldMailbox(address));
      }),
    );
  });
});

describe('the browser binding cookie', () => {
  it('is __Host- prefixed, Secure and Lax on an https checkout, plain on http', () => {
    expect(browserBinding({ checkoutBaseUrl: 'https://pay.example.com' })).toMatchObject({
      name: '__Host-checkout_browser',
      attributes: { httpOnly: true, secure: true, sameSite: 'Lax', path: '/', prefix: 'host' },
    });
    const local = browserBinding({ checkoutBaseUrl: 'http://localhost:3001' });
    expect(local.name).toBe('checkout_browser');
    expect(local.attributes).toMatchObject({ httpOnly: true, secure: false, sameSite: 'Lax', path: '/' });
  });

  it('is SameSite=None, Secure and Partitioned in a frame', () => {
    expect(browserBinding({ checkoutBaseUrl: 'https://pay.example.com', framed: true }).attributes).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: 'None',
      partitioned: true,
      prefix: 'host',
    });
  });
});
