import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { formatAmount } from '../../core/money.js';
import type { CheckoutSession } from './load-session.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The page shell. Every interpolated value goes through hono/html, which escapes it. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/assets/checkout.css">
<script src="/assets/htmx.min.js" defer></script>
</head>
<body>
<main class="checkout">${body}</main>
</body>
</html>`;
}

export function cartSummary(session: CheckoutSession): Html {
  const { store, cart, amount } = session;
  return html`<header class="store">
  ${store.logo ? html`<img class="store-logo" src="${store.logo}" alt="" width="40" height="40">` : ''}
  <h1 class="store-name">${store.name}</h1>
</header>
<section class="cart" aria-label="Your order">
  <ul class="items">
    ${cart.items.map(
      (item) => html`<li class="item">
      <img class="item-image" src="${item.image}" alt="" width="56" height="56" loading="lazy">
      <div class="item-text">
        <p class="item-title">${item.title}</p>
        ${item.variantOptions?.length ? html`<p class="item-variants">${item.variantOptions.join(' · ')}</p>` : ''}
        <p class="item-quantity">Qty ${item.quantity}</p>
      </div>
      <p class="item-price">${formatAmount(item.price * item.quantity, cart.currency)}</p>
    </li>`,
    )}
  </ul>
  <p class="total"><span>Total</span> <strong data-testid="total">${formatAmount(amount, cart.currency)}</strong></p>
</section>`;
}

export function checkoutPage(session: CheckoutSession): Html {
  return layout(`Pay ${session.store.name}`, cartSummary(session));
}

export function messagePage(title: string, message: string): Html {
  return layout(title, html`<section class="message"><h1>${title}</h1><p>${message}</p></section>`);
}
