import { ApiError, validationError } from '../../application/errors.js';
import { currencySchema } from '../../core/checkout/cart-schema.js';
import { createPaymentLinkSchema, type CreatePaymentLinkRequest, type PaymentLink } from '../../core/links/payment-link-schema.js';
import type { DomainVerificationView } from '../../core/merchants/domain-verification.js';
import type { MerchantSummary } from '../../core/merchants/merchants.js';
import { parseRefundAmount } from './refund-amount.js';

/**
 * The dashboard's "new payment link" form: one item at one price, turned into the cartObject the
 * merchant API takes (core/checkout/cart-schema.ts), and every refusal, the schema's or
 * application/links/create-payment-link.ts's, turned back into an error beside the field it is about.
 */

export const LINK_FORM_FIELDS = ['title', 'amount', 'currency', 'country', 'storeUrl', 'image', 'successUrl', 'failureUrl', 'maxUses', 'expiresOn'] as const;
export type LinkFormField = (typeof LINK_FORM_FIELDS)[number];
/** As typed, trimmed. */
export type LinkForm = Record<LinkFormField, string>;
/** `form`: a refusal about no one field, said above the form. */
export type LinkFormErrors = Partial<Record<LinkFormField | 'form', string[]>>;

/** How each field is named in its errors, as its label says it. */
export const LINK_FORM_LABELS: Record<LinkFormField, string> = {
  title: 'Title',
  amount: 'Price',
  currency: 'Currency',
  country: 'Country',
  storeUrl: 'Store URL',
  image: 'Image URL',
  successUrl: 'Success URL',
  failureUrl: 'Failure URL',
  maxUses: 'Maximum paid sessions',
  expiresOn: 'Expiry date',
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;

export function readLinkForm(body: Record<string, unknown>): LinkForm {
  const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
  return Object.fromEntries(LINK_FORM_FIELDS.map((f) => [f, text(f)])) as LinkForm;
}

/**
 * An empty form: the currency and country of the newest link (else EUR and FR, the API examples'),
 * and the URLs on the merchant's registered domain (a verified one first: production takes no other),
 * else empty for the merchant to fill.
 */
export function defaultLinkForm(
  merchant: { domainVerification: ReadonlyArray<Pick<DomainVerificationView, 'domain' | 'status'>> },
  newest?: PaymentLink,
): LinkForm {
  const domains = [...merchant.domainVerification].sort((a, b) => Number(b.status !== 'unverified') - Number(a.status !== 'unverified'));
  const site = domains[0] ? `https://${domains[0].domain}` : '';
  return {
    title: '',
    amount: '',
    currency: newest?.cartObject.cart.currency ?? 'EUR',
    country: newest?.cartObject.cart.country ?? 'FR',
    storeUrl: site,
    image: '',
    successUrl: site && `${site}/checkout/success`,
    failureUrl: site && `${site}/checkout/failure`,
    maxUses: '',
    expiresOn: '',
  };
}

/**
 * The request the merchant API would take for this form, checked by the API's own schema; or the
 * errors, each at its field. The item links to the store, and shows the store's favicon when no
 * image is given: a cart item needs both URLs.
 */
export function linkRequestOf(
  form: LinkForm,
  merchant: Pick<MerchantSummary, 'platformUuid' | 'name'>,
): { request: CreatePaymentLinkRequest } | { errors: LinkFormErrors } {
  const errors: LinkFormErrors = {};
  const add = (field: LinkFormField, message: string) => (errors[field] ??= []).push(message);

  // Codes in upper case, as the schema wants them, whatever was typed.
  const code = { currency: form.currency.toUpperCase(), country: form.country.toUpperCase() };
  const currency = currencySchema.safeParse(code.currency);
  let price: number | undefined;
  if (!currency.success) add('currency', `Currency ${currency.error.issues[0]!.message}.`);
  else {
    const amount = parseRefundAmount(form.amount, code.currency);
    if ('problem' in amount) add('amount', amount.problem);
    else price = amount.minor;
  }
  const maxUses = form.maxUses === '' ? undefined : /^\d{1,9}$/.test(form.maxUses) ? Number(form.maxUses) : NaN;
  if (Number.isNaN(maxUses)) add('maxUses', 'Enter a whole number of paid sessions, such as 20, or leave it empty for no limit.');
  const expiresOn = form.expiresOn === '' ? undefined : DATE.test(form.expiresOn) ? Date.parse(`${form.expiresOn}T00:00:00Z`) : NaN;
  if (Number.isNaN(expiresOn)) add('expiresOn', 'Enter a date such as 2030-12-31, or leave it empty for a link that never expires.');
  if (Object.keys(errors).length > 0) return { errors };

  const storeOrigin = URL.parse(form.storeUrl)?.origin;
  const request = {
    cartObject: {
      store: { platformUuid: merchant.platformUuid, name: merchant.name, url: form.storeUrl },
      cart: {
        currency: code.currency,
        country: code.country,
        items: [
          {
            title: form.title,
            description: form.title,
            price: price!,
            quantity: 1,
            url: form.storeUrl,
            image: form.image || (storeOrigin && storeOrigin !== 'null' ? `${storeOrigin}/favicon.ico` : form.storeUrl),
            zeroPay: price === 0,
          },
        ],
        extra: {},
        merchantUrls: { successUrl: form.successUrl, failureUrl: form.failureUrl },
      },
    },
    ...(maxUses === undefined ? {} : { maxUses }),
    // The end of the day typed, in UTC, as the dashboard shows every time.
    ...(expiresOn === undefined ? {} : { expiresAt: new Date(expiresOn + DAY_MS).toISOString() }),
  };
  const parsed = createPaymentLinkSchema.safeParse(request, { reportInput: true });
  if (parsed.success) return { request: parsed.data };
  const refused = linkFormErrors(validationError(parsed.error));
  // An image left empty is the store's favicon: what is wrong with it is the store URL, said there.
  if (form.image === '') delete refused.image;
  return { errors: refused };
}

/** Where the API's field paths are on the form: the one item is the title, price and image, and links to the store. */
function fieldOfPath(path: string): LinkFormField | 'form' {
  if (path === 'maxUses') return 'maxUses';
  if (path === 'expiresAt') return 'expiresOn';
  if (path === 'cartObject.store.url' || /^cartObject\.cart\.items\[0\]\.url$/.test(path)) return 'storeUrl';
  if (path === 'cartObject.cart.currency') return 'currency';
  if (path === 'cartObject.cart.country') return 'country';
  if (path === 'cartObject.cart.merchantUrls.successUrl') return 'successUrl';
  if (path === 'cartObject.cart.merchantUrls.failureUrl') return 'failureUrl';
  if (/^cartObject\.cart\.items\[0\]\.image$/.test(path)) return 'image';
  if (/^cartObject\.cart\.items\[0\]\.(title|description)$/.test(path)) return 'title';
  if (/^cartObject\.cart\.items(\[0\]\.(price|zeroPay))?$/.test(path)) return 'amount';
  return 'form';
}

/**
 * An API refusal as form errors: each field error beside its field, in the field's words; the
 * message above the form when no field error says it all (a refusal of the whole request, or a
 * field this form does not show).
 */
export function linkFormErrors(err: ApiError): LinkFormErrors {
  const errors: LinkFormErrors = {};
  for (const e of err.errors) {
    const field = fieldOfPath(e.path);
    if (field === 'form') (errors.form ??= []).push(`${e.path} ${e.message}.`);
    // One problem per field: the item's description is its title and its URL the store's, refused in near the same words.
    else errors[field] ??= [`${LINK_FORM_LABELS[field]} ${e.message}.`];
  }
  if (err.errors.length === 0 || errors.form) (errors.form ??= []).unshift(err.message);
  return errors;
}
