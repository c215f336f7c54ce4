import { html } from 'hono/html';
import { dateTimeFormat, numberFormat } from '../../../core/intl-formats.js';
import { getOrCreate } from '../../../core/maps.js';
import { languageSwitcher, layout, type Html } from './layout.js';
import { t } from '../../i18n/index.js';
import type { StepView } from './step-view.js';
import { stepPanel } from './steps.js';
import { orderSummary } from './summary.js';

/**
 * The whole hosted page: the order on one side, the current step and the session clock on the other.
 * Landmarks at the top level: the merchant's header (with the page's one h1), the order summary
 * (aside), the step (main) and the footer; the two wrappers are only the columns of the layout.
 */
export function checkoutPage(view: StepView): Html {
  const { session } = view;
  const processing = session.state.step === 'processing';
  const { locale } = view;
  return layout({
    locale,
    title: t(locale, 'page.title', { store: session.store.name }),
    refreshTo: processing ? `/status?token=${session.cartId}` : undefined,
    brandColour: session.brandColour,
    embedded: view.embedded,
    body: html`<div class="checkout">
      <div class="summary">${orderSummary(session, { sandbox: view.sandbox !== undefined, locale })}</div>
      <div class="payment-column">
        <main class="payment">${processing ? '' : countdown(session.state.expiresOn, locale)} ${stepPanel(view)}</main>
        <footer class="footer"><span class="lock" aria-hidden="true"></span><span>${t(locale, 'page.footer', { store: session.store.name })}</span></footer>
        ${languageSwitcher(locale, `/?token=${session.cartId}`)}
      </div>
    </div>`,
  });
}

/**
 * The clock the customer pays against; /assets/checkout.js ticks it and reloads the page at zero. The
 * per-second clock is hidden from screen readers (it would be read out every second, or be stale);
 * they get the polite summary instead, which checkout.js rewrites only as the time left passes 30,
 * 15, 10, 5, 2 and 1 minutes.
 */
function countdown(expiresOn: string, locale: string): Html {
  const secondsLeft = Math.max(0, Math.floor((Date.parse(expiresOn) - Date.now()) / 1000));
  const texts = countdownTexts(locale);
  // m:ss, and h:mm:ss from an hour up (sessionMinutes may reach 24 hours), as /assets/checkout.js ticks it.
  const wholeMinutes = Math.floor(secondsLeft / 60);
  const clock =
    wholeMinutes < 60
      ? `${texts.minutes.format(wholeMinutes)}:${texts.seconds.format(secondsLeft % 60)}`
      : `${texts.minutes.format(Math.floor(wholeMinutes / 60))}:${texts.seconds.format(wholeMinutes % 60)}:${texts.seconds.format(secondsLeft % 60)}`;
  const at = texts.time.format(new Date(expiresOn));
  const minutes = Math.ceil(secondsLeft / 60);
  return html`<p class="countdown" data-expires-at="${expiresOn}" data-at-text="${texts.atText}" data-announcements="${texts.announcements}">
    <span aria-hidden="true">${texts.expiresIn}</span>
    <time datetime="${expiresOn}" class="countdown-clock" aria-hidden="true">${clock}</time>
    <span class="countdown-at" aria-hidden="true">${t(locale, 'countdown.atUtc', { time: at })}</span>
    <span class="countdown-summary visually-hidden" role="status" aria-live="polite">${t(locale, 'countdown.summary', { minutes, time: at })}</span>
  </p>`;
}

/** What the clock says that depends only on the page's language: built once per locale, not per render. */
const countdownTextsByLocale = new Map<string, ReturnType<typeof buildCountdownTexts>>();
const countdownTexts = (locale: string) => getOrCreate(countdownTextsByLocale, locale, () => buildCountdownTexts(locale));

function buildCountdownTexts(locale: string) {
  return {
    minutes: numberFormat(locale, { useGrouping: false }),
    seconds: numberFormat(locale, { minimumIntegerDigits: 2, useGrouping: false }),
    time: dateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' }),
    expiresIn: t(locale, 'countdown.expiresIn'),
    atText: t(locale, 'countdown.at', { time: '{time}' }),
    // What checkout.js says as the clock passes each mark, in the page's language.
    announcements: JSON.stringify(
      Object.fromEntries(
        [30, 15, 10, 5, 2, 1].map((m) => [m, m === 1 ? t(locale, 'countdown.lessThanAMinute') : t(locale, 'countdown.minutesLeft', { minutes: m })]),
      ),
    ),
  };
}
