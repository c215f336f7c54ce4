import { describe, expect, it } from 'vitest';
import { readContact } from '../../core/checkout/contact-input.js';

/**
 * The per-destination code limit counts a mailbox, not a spelling of it: addresses a provider delivers
 * to one inbox are one destination (core/checkout/otp/destination.ts foldMailbox), while the code
 * still goes to the address as typed.
 */
describe('mailbox folding for the per-destination code limit', () => {
  it.each([
    // Gmail ignores dots and +tags, and googlemail.com is the same mailbox as gmail.com.
    ['v.i.c.t.i.m@gmail.com', 'victim@gmail.com'],
    ['Victim+x@Gmail.com', 'victim@gmail.com'],
    ['v.ictim+promo.2@googlemail.com', 'victim@gmail.com'],
    ['victim@googlemail.com', 'victim@gmail.com'],
    // Providers documenting plus addressing, without dot folding: dots are part of the mailbox there.
    ['jane.doe+shop@outlook.com', 'jane.doe@outlook.com'],
    ['jane.doe+shop@hotmail.com', 'jane.doe@hotmail.com'],
    ['jane.doe+shop@icloud.com', 'jane.doe@icloud.com'],
    ['jane.doe+shop@fastmail.com', 'jane.doe@fastmail.com'],
  ])('counts %j as %j', (raw, destination) => {
    expect(readContact(raw)?.destination).toBe(destination);
  });

  it.each([
    // Dots are folded only where the provider says they do not matter: Google Workspace and every
    // other domain deliver j.doe@ and jdoe@ to different people.
    ['j.doe@example.com', 'j.doe@example.com'],
    ['j.doe@outlook.com', 'j.doe@outlook.com'],
    ['j.doe@gmail.example', 'j.doe@gmail.example'],
    // No domain is taken for another's alias but googlemail.com's.
    ['jane@hotmail.com', 'jane@hotmail.com'],
  ])('keeps %j apart as %j', (raw, destination) => {
    expect(readContact(raw)?.destination).toBe(destination);
  });

  it('sends the code to the address as typed (lower-cased), only the count is folded', () => {
    expect(readContact('V.I.C.T.I.M+x@GoogleMail.com')).toMatchObject({
      contact: { channel: 'email', address: 'v.i.c.t.i.m+x@googlemail.com' },
      destination: 'victim@gmail.com',
    });
  });

  it('one address with any number of dots and tags is still one destination', () => {
    const spellings = [
      'victim@gmail.com',
      'v.i.c.t.i.m@gmail.com',
      'victim+x@gmail.com',
      'vi.ctim+y@googlemail.com',
      'VICTIM@GMAIL.COM',
      'v.i.ctim+@gmail.com',
    ];
    expect(new Set(spellings.map((s) => readContact(s)?.destination))).toEqual(new Set(['victim@gmail.com']));
  });
});
