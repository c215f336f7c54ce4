import { html } from 'hono/html';
import { formatAmount } from '../../../core/money.js';
import type { CheckoutSession } from '../load-session.js';
import type { Html } from './layout.js';
import { t, tHtml } from '../../i18n/index.js';

/**
 * The registered merchant to show beside the store name the request carried, or undefined when both
 * say the same. The store name is the merchant's to choose per cart (a brand, a marketplace shop), but
 * the customer must always see who takes the money: names that differ once Unicode-compatibility
 * folded (NFKC), trimmed, with runs of spaces as one and case ignored are both shown. A look-alike
 * written with other scripts' letters therefore still shows the registered name.
 */
export function registeredNameBeside(storeName: string, merchantName: string): string | undefined {
  const fold = (name: string) => name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
  return fold(storeName) === fold(merchantName) ? undefined : merchantName;
}

/**
 * What is being paid for: the merchant (the page's header, whose "Pay <store>" is the page's one h1),
 * then every line and the total in the currency's minor units (the order summary, an aside).
 */
export function orderSummary(session: CheckoutSession, options: { sandbox: boolean; locale: string }): Html {
  const { locale } = options;
  const money = (minor: number) => formatAmount(minor, cart.currency, locale);
  const { store, cart, amount } = session;
  const seller = registeredNameBeside(store.name, session.merchantName);
  return html`<header class="store">
      <div class="merchant">
        <span class="merchant-initial" aria-hidden="true"
          >${initial(store.name)}${store.logo ? html`<img class="merchant-logo" src="${store.logo}" alt="" width="32" height="32" />` : ''}</span
        >
        <span class="merchant-name">${store.name}</span>
        ${options.sandbox ? html`<span class="badge">${t(locale, 'summary.testMode')}</span>` : ''}
      </div>
      ${seller ? html`<p class="merchant-seller" data-testid="registered-merchant">${tHtml(locale, 'summary.soldBy', { seller })}</p>` : ''}
      <h1 class="pay-label">${t(locale, 'summary.payStore', { store: store.name })}</h1>
    </header>
    <aside class="order" aria-label="${t(locale, 'summary.orderSummary')}">
      <p class="amount" data-testid="total">${money(amount)}</p>
      <details class="lines" open>
        <summary class="lines-toggle">${t(locale, 'summary.items', { count: cart.items.length })}</summary>
        <ul class="items">
          ${cart.items.map(
            (item) =>
              html`<li class="item">
                <span class="thumb"><img class="item-image" src="${item.image}" alt="" width="48" height="48" loading="lazy" /></span>
                <div class="item-text">
                  <p class="item-title">${item.title}</p>
                  ${item.variantOptions?.length ? html`<p class="item-variants">${item.variantOptions.join(' · ')}</p>` : ''}
                  <p class="item-quantity">
                    ${t(locale, 'summary.quantity', { quantity: item.quantity })}${item.quantity > 1 ? html` × ${money(item.price)}` : ''}
                  </p>
                </div>
                <p class="item-price">${money(item.price * item.quantity)}</p>
              </li>`,
          )}
        </ul>
      </details>
      <p class="total"><span>${t(locale, 'summary.totalDue')}</span> <strong>${money(amount)}</strong></p>
    </aside>`;
}

function initial(name: string): string {
  return [...name.trim()][0]?.toUpperCase() ?? '·';
}
