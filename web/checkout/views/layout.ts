import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { LOCALES, direction, t } from '../../i18n/index.js';
import { assetIntegrity, assetPath, brandStylesheetIntegrity, brandStylesheetPath } from '../../assets.js';
import { EMBED_HEADER } from '../embedding.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * htmx settings, read from a meta tag because the CSP allows no inline script: swap every answer
 * (422 and 503 carry the message the customer must see) and inject no inline style (CSP again).
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '...', swap: true },
  ],
});

/** The embedded page's htmx requests say so (web/checkout/embedding.ts): a fetch carries no Sec-Fetch-Dest: iframe. */
const EMBED_HEADERS = JSON.stringify({ [EMBED_HEADER]: '1' });

/**
 * The head tags every page of ours starts with, the checkout's and the dashboard's: no referrer leaves
 * with a cartId or a session in it, no search engine indexes a page, and htmx runs with our config.
 */
export function pageMeta(): Html {
  return html`<meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <meta name="robots" content="noindex" />
    <meta name="htmx-config" content="${HTMX_CONFIG}" />`;
}

/** The page shell. Every interpolated value goes through hono/html, which escapes it. */
export function layout(options: { locale: string; title: string; body: Html; refreshTo?: string; brandColour?: string | null; embedded?: boolean }): Html {
  return html`<!doctype html>
    <html lang="${options.locale}" dir="${direction(options.locale)}">
      <head>
        ${pageMeta()}
        <title>${options.title}</title>
        <link rel="stylesheet" href="${assetPath('checkout.css')}" integrity="${assetIntegrity('checkout.css')}" />
        ${
          options.brandColour
            ? html`<link rel="stylesheet" href="${brandStylesheetPath(options.brandColour)}" integrity="${brandStylesheetIntegrity(options.brandColour)}" />`
            : ''
        }
        <script src="${assetPath('htmx.min.js')}" integrity="${assetIntegrity('htmx.min.js')}" crossorigin="anonymous" defer></script>
        <script src="${assetPath('checkout.js')}" integrity="${assetIntegrity('checkout.js')}" crossorigin="anonymous" defer></script>
        ${
          options.embedded
            ? html`<script
                src="${assetPath('checkout-embedded.js')}"
                integrity="${assetIntegrity('checkout-embedded.js')}"
                crossorigin="anonymous"
                defer
              ></script>`
            : ''
        }
        ${options.refreshTo ? html`<noscript><meta http-equiv="refresh" content="2;url=${options.refreshTo}" /></noscript>` : ''}
      </head>
      <body ${options.embedded ? html`data-embedded hx-headers="${EMBED_HEADERS}"` : ''}>
        ${options.body}
      </body>
    </html>`;
}

/** A page that only says something: not found, expired, already used, unavailable. */
export function messagePage(options: { locale: string; title: string; message: string; link?: { href: string; label: string } }): Html {
  return layout({
    locale: options.locale,
    title: options.title,
    body: html`<main class="message-page">
      <section class="panel message" role="status">
        <h1>${options.title}</h1>
        <p>${options.message}</p>
        ${options.link ? html`<a class="button-link" href="${options.link.href}">${options.link.label}</a>` : ''}
      </section>
    </main>`,
  });
}

/**
 * Links to the same page in every language the page speaks: a plain GET with `lang=`, which the server
 * keeps in the checkout_lang cookie, so it works without JavaScript and keeps the step.
 */
export function languageSwitcher(locale: string, path: string): Html {
  const separator = path.includes('?') ? '&' : '?';
  return html`<nav class="languages" aria-label="${t(locale, 'page.languages')}">
    <ul>
      ${LOCALES.map(
        (other) =>
          html`<li>
            <a href="${path}${separator}lang=${other}" lang="${other}" hreflang="${other}" ${other === locale ? html`aria-current="true"` : ''}
              >${t(other, 'meta.name')}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}
