import { domainToASCII } from 'node:url';
import countries from 'i18n-iso-countries';
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import { parseContact, type ParsedContact } from './contact.js';
import { foldMailbox } from './otp/destination.js';

export interface ContactInput {
  /** What the code is sent to, and what the workflow is given: lower-cased email with an ASCII domain, or E.164. */
  contact: ParsedContact;
  /**
   * What the per-destination code limit counts (core/checkout/otp/destination.ts): the address, with
   * an email folded to the mailbox it reaches (foldMailbox: `jane+1@…` is `jane@…`, and at Gmail
   * `j.a.n.e@googlemail.com` is `jane@gmail.com`).
   */
  destination: string;
}

/**
 * What the customer typed in the page's contact field, read strictly: an email is one bare mailbox
 * (IDN domains converted to ASCII), a phone number is valid for its region by libphonenumber's
 * metadata, a national one read in the cart's country (ISO 3166-1 alpha-2 or alpha-3).
 */
export function readContact(raw: string, cartCountry?: string): ContactInput | undefined {
  const value = raw.trim();
  if (value.includes('@')) {
    const at = value.lastIndexOf('@');
    // domainToASCII lower-cases and applies IDNA; it answers '' for what is no domain name.
    const domain = domainToASCII(value.slice(at + 1));
    const contact = domain ? parseContact(`${value.slice(0, at)}@${domain}`) : undefined;
    if (!contact) return undefined;
    return { contact, destination: foldMailbox(contact.address) };
  }
  const region = cartCountry && (cartCountry.length === 3 ? countries.alpha3ToAlpha2(cartCountry) : cartCountry);
  const phone = parsePhoneNumberFromString(value.replace(/^00/, '+'), region && isSupportedCountry(region) ? region : undefined);
  if (!phone?.isValid()) return undefined;
  const contact = parseContact(phone.number);
  return contact && { contact, destination: contact.address };
}
