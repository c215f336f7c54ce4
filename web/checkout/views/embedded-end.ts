import { html } from 'hono/html';
import { t } from '../../i18n/index.js';
import { layout, type Html } from './layout.js';

/**
 * The embedded page's last answer: it tells the merchant's page `completed` and asks it to go to the
 * return URL at the top level (/assets/checkout.js); the link does the same without a message.
 */
export function embeddedEndPage(options: { locale: string; store: string; cartId: string; status: string; returnUrl: string }): Html {
  const { locale, store } = options;
  const title = t(locale, 'embedded.leaving', { store });
  return layout({
    locale,
    title,
    embedded: true,
    body: html`<main class="message-page">
      <section
        class="panel message"
        role="status"
        data-embed-end
        data-cart-id="${options.cartId}"
        data-status="${options.status}"
        data-return-url="${options.returnUrl}"
      >
        <h1>${title}</h1>
        <a class="button-link" href="${options.returnUrl}" target="_top">${t(locale, 'common.returnTo', { store })}</a>
      </section>
    </main>`,
  });
}
