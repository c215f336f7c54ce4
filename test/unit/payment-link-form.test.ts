import { describe, expect, it } from 'vitest';
import { ApiError } from '../../application/errors.js';
import { defaultLinkForm, linkFormErrors, linkRequestOf, readLinkForm, type LinkForm } from '../../web/dashboard/payment-link-form.js';

const merchant = { platformUuid: '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80', name: 'Poster <Shop>' };
const typed = (edit: Partial<LinkForm> = {}): LinkForm => ({
  ...defaultLinkForm({
    domainVerification: [{ domain: 'store.example', status: 'not-required' as const }],
  }),
  title: 'Poster A2',
  amount: '12,5',
  ...edit,
});

describe('the dashboard’s new payment link form', () => {
  it('defaults the URLs to the merchant’s verified domain first, and leaves them empty without one', () => {
    const view = (domain: string, status: 'verified' | 'unverified') => ({ domain, status });
    const form = defaultLinkForm({ domainVerification: [view('new.example', 'unverified'), view('shop.example', 'verified')] });
    expect(form).toMatchObject({ storeUrl: 'https://shop.example', successUrl: 'https://shop.example/checkout/success', currency: 'EUR', country: 'FR' });
    expect(defaultLinkForm({ domainVerification: [] })).toMatchObject({ storeUrl: '', successUrl: '', failureUrl: '' });
  });

  it('builds the cartObject the merchant API takes: one item at the price typed, the store’s favicon for its image, the end of the day typed', () => {
    const built = linkRequestOf(typed({ currency: 'eur', maxUses: '5', expiresOn: '2099-12-31' }), merchant);
    expect(built).toEqual({
      request: {
        cartObject: {
          store: { platformUuid: merchant.platformUuid, name: 'Poster <Shop>', url: 'https://store.example' },
          cart: {
            currency: 'EUR',
            country: 'FR',
            items: [
              {
                title: 'Poster A2',
                description: 'Poster A2',
                price: 1250,
                quantity: 1,
                url: 'https://store.example',
                image: 'https://store.example/favicon.ico',
                zeroPay: false,
              },
            ],
            extra: {},
            merchantUrls: { successUrl: 'https://store.example/checkout/success', failureUrl: 'https://store.example/checkout/failure' },
          },
        },
        maxUses: 5,
        expiresAt: '2100-01-01T00:00:00.000Z',
      },
    });
  });

  it('says each problem at its field, in the field’s words', () => {
    expect(linkRequestOf(typed({ amount: '12.505', maxUses: 'many', expiresOn: '31/12/2099' }), merchant)).toEqual({
      errors: {
        amount: ['EUR has 2 decimal places at most.'],
        maxUses: ['Enter a whole number of paid sessions, such as 20, or leave it empty for no limit.'],
        expiresOn: ['Enter a date such as 2030-12-31, or leave it empty for a link that never expires.'],
      },
    });
    expect(linkRequestOf(typed({ currency: 'EURO' }), merchant)).toMatchObject({
      errors: { currency: [expect.stringMatching(/^Currency must be an ISO 4217/)] },
    });
    // The store URL is the item's URL and, with no image, its image's origin: refused once, at the store URL.
    expect(linkRequestOf(typed({ storeUrl: 'store.example', title: '', maxUses: '0' }), merchant)).toEqual({
      errors: {
        storeUrl: ['Store URL must be an absolute https URL with a public host name.'],
        title: ['Title must not be empty.'],
        maxUses: [expect.stringMatching(/^Maximum paid sessions must be at least 1/)],
      },
    });
  });

  it('puts the API’s refusals at the fields they name, and the rest above the form', () => {
    const refused = new ApiError('VALIDATION_ERROR', 'The request has 2 invalid fields.', [
      { path: 'expiresAt', message: 'must be in the future; leave it out for a link that never expires' },
      { path: 'cartObject.cart.merchantUrls.successUrl', message: 'host store.example is not one of this merchant’s registered domains' },
    ]);
    expect(linkFormErrors(refused)).toEqual({
      expiresOn: ['Expiry date must be in the future; leave it out for a link that never expires.'],
      successUrl: ['Success URL host store.example is not one of this merchant’s registered domains.'],
    });
    expect(linkFormErrors(new ApiError('UNAUTHORIZED', 'This merchant is no longer active.'))).toEqual({ form: ['This merchant is no longer active.'] });
    expect(linkFormErrors(new ApiError('VALIDATION_ERROR', 'Bad.', [{ path: 'cartObject.store.platformUuid', message: 'must be your own' }]))).toEqual({
      form: ['Bad.', 'cartObject.store.platformUuid must be your own.'],
    });
  });

  it('reads only text fields, trimmed', () => {
    expect(readLinkForm({ title: '  Poster ', amount: ['1', '2'] })).toMatchObject({ title: 'Poster', amount: '' });
  });
});
