import { html } from 'hono/html';
import type { MerchantSummary } from '../../../core/merchants/merchants.js';
import { ENDPOINT_LIMITS, type WebhookEndpoint } from '../../../core/webhooks/endpoint-schema.js';
import { DELIVERY_ERROR_WORDS } from '../../../core/outbound/delivery-errors.js';
import { WEBHOOK_EVENT_NAMES } from '../../../core/webhooks/events.js';
import type { EventDeliveries } from '../../../core/webhooks/event-history.js';
import type { TestEventResult } from '../../../core/webhooks/test-event.js';
import { formatTime, words } from './format.js';
import { dashboardLayout, type Html } from './layout.js';

/** What the last form on the page did, shown in its own section. */
export type SettingsFormResult =
  | { form: 'url'; error?: string[]; saved?: boolean; value?: string }
  | { form: 'test'; result?: TestEventResult; error?: string }
  | { form: 'secret'; secret: string; previousSecretsExpireAt: string }
  | { form: 'domains'; error?: string[]; saved?: boolean; value?: string; checked?: boolean }
  | { form: 'replay'; eventId: string; said?: string[]; error?: string }
  | { form: 'brand'; error?: string; saved?: boolean; value?: string }
  | { form: 'savedCards'; saved?: boolean }
  | {
      form: 'endpoints';
      error?: string[];
      added?: { url: string; secret: string };
      deleted?: boolean;
      value?: { url: string; events: string[]; description: string };
    };

export interface SettingsView {
  merchant: MerchantSummary;
  deliveries: EventDeliveries[];
  endpoints: WebhookEndpoint[];
  csrf: string;
  result?: SettingsFormResult;
}

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;

/** A form that swaps its own section with htmx, and posts as a plain form without it. */
const form = (section: string, action: string, csrf: string, body: Html) =>
  html`<form method="post" action="${action}" hx-post="${action}" hx-target="#${section}" hx-swap="outerHTML">${csrfField(csrf)}${body}</form>`;

function fieldErrors(id: string, errors: string[] | undefined): Html | string {
  if (!errors?.length) return '';
  return html`<div class="field-error" id="${id}">
    ${
      errors.length === 1
        ? errors[0]
        : html`<ul>
            ${errors.map((e) => html`<li>${e}</li>`)}
          </ul>`
    }
  </div>`;
}

/** A labelled one-line field with its hint, and its errors (then marked invalid and focused) when a save was refused. */
export function textField(field: {
  id: string;
  name: string;
  label: string;
  value: string;
  extra: Html;
  hint: Html | string;
  errors: string[] | undefined;
}): Html {
  const { id, errors } = field;
  return html`<div class="field ${errors ? 'invalid' : ''}">
    <label for="${id}">${field.label}</label>
    <input
      type="text"
      id="${id}"
      name="${field.name}"
      value="${field.value}"
      spellcheck="false"
      ${field.extra}
      aria-describedby="${id}-hint${errors ? ` ${id}-error` : ''}"
      ${errors ? html`aria-invalid="true" autofocus` : ''}
    />
    <p class="hint" id="${id}-hint">${field.hint}</p>
    ${fieldErrors(`${id}-error`, errors)}
  </div>`;
}

export function endpointSection(view: SettingsView): Html {
  const { merchant, result } = view;
  const urlResult = result?.form === 'url' ? result : undefined;
  const error = urlResult?.error;
  const disabled = merchant.endpointStatus === 'disabled';
  return html`<section id="endpoint" class="panel" aria-labelledby="endpoint-title">
    <h2 id="endpoint-title">Endpoint</h2>
    <p class="endpoint-status">
      Status:
      <span class="badge-status ${disabled ? 'status-bad' : 'status-ok'}" data-endpoint-status="${merchant.endpointStatus}"
        >${disabled ? 'Disabled' : 'Enabled'}</span
      >
      ${disabled && merchant.endpointDisabledReason ? html`<span class="muted">(${merchant.endpointDisabledReason})</span>` : ''}
    </p>
    ${
      disabled
        ? merchant.endpointDisabledByOperator
          ? html`<p class="hint">
              Events are kept while it is disabled. An operator disabled it: only an operator enables it again (contact support); until then nothing is sent to
              it, replays and test events included.
            </p>`
          : html`<p class="hint">
              Events are kept while it is disabled. Saving a URL (the same one, once it works) enables it again; then replay what was skipped.
            </p>`
        : ''
    }
    ${urlResult?.saved ? html`<p class="notice" role="status">${disabled ? 'Saved. The endpoint stays disabled until an operator enables it.' : 'Saved. The endpoint is enabled.'}</p>` : ''}
    ${form(
      'endpoint',
      '/dashboard/webhooks/url',
      view.csrf,
      html`${textField({
          id: 'webhookUrl',
          name: 'webhookUrl',
          label: 'Webhook URL',
          value: urlResult?.value ?? merchant.webhookUrl,
          extra: html`inputmode="url" autocomplete="url"`,
          hint: merchant.environment === 'production' ? 'https, on a public address.' : 'https or http, on a public address or this machine (localhost).',
          errors: error,
        })} <button type="submit">Save URL</button>`,
    )}
  </section>`;
}

/** A column's name in its cell, shown where a phone turns a table's rows into cards (dashboard.css); screen readers have the header already. */
export const cellLabel = (column: string) => html`<span class="cell-label" aria-hidden="true">${column}</span>`;

/** Every endpoint with its events, and adding or deleting one; the API does the rest (docs/webhooks.md). */
export function endpointsSection(view: SettingsView): Html {
  const result = view.result?.form === 'endpoints' ? view.result : undefined;
  const chosen = result?.value?.events ?? ['*'];
  const full = view.endpoints.length >= ENDPOINT_LIMITS.perMerchant;
  return html`<section id="endpoints" class="panel" aria-labelledby="endpoints-title">
    <h2 id="endpoints-title">All endpoints</h2>
    <p class="lead">Each endpoint receives the events it subscribed to, signed with its own secret. The first is the one above.</p>
    ${result?.deleted ? html`<p class="notice" role="status">Deleted: nothing more is sent to it.</p>` : ''}
    ${
      result?.added
        ? html`<div class="notice" role="status">
            <p>Added <code>${result.added.url}</code>. Its signing secret, shown this once:</p>
            <p><code class="secret">${result.added.secret}</code></p>
          </div>`
        : ''
    }
    <div class="table-scroll" tabindex="0" role="region" aria-label="Endpoints table">
      <table class="reflow">
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Description</th>
            <th scope="col">Status</th>
            <th scope="col"><span class="visually-hidden">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${view.endpoints.map(
            (e, i) =>
              html`<tr data-endpoint-id="${e.id}">
                <td>${cellLabel('URL')}<code>${e.url}</code></td>
                <td>
                  ${cellLabel('Events')}${e.enabledEvents.includes('*') ? 'All events' : e.enabledEvents.map((name, j) => html`${j ? ', ' : ''}<code>${name}</code>`)}
                </td>
                <td>${e.description ? html`${cellLabel('Description')}${e.description}` : ''}</td>
                <td>
                  ${cellLabel('Status')}<span class="badge-status ${e.status === 'disabled' ? 'status-bad' : 'status-ok'}"
                    >${e.status === 'disabled' ? 'Disabled' : 'Enabled'}</span
                  >
                </td>
                <td>
                  ${
                    view.endpoints.length > 1
                      ? form(
                          'endpoints',
                          `/dashboard/webhooks/endpoints/${encodeURIComponent(e.id)}/delete`,
                          view.csrf,
                          html`<button type="submit" class="small" aria-label="Delete endpoint ${i + 1}, ${e.url}">Delete</button>`,
                        )
                      : ''
                  }
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      full
        ? html`<p class="hint">You have ${ENDPOINT_LIMITS.perMerchant} endpoints, the most allowed.</p>`
        : form(
            'endpoints',
            '/dashboard/webhooks/endpoints',
            view.csrf,
            html`${textField({
                id: 'endpointUrl',
                name: 'url',
                label: 'New endpoint URL',
                value: result?.value?.url ?? '',
                extra: html`inputmode="url" autocomplete="url"`,
                hint:
                  view.merchant.environment === 'production'
                    ? 'https, on a public address.'
                    : 'https or http, on a public address or this machine (localhost).',
                errors: result?.error,
              })}
              <fieldset class="field">
                <legend>Events it receives</legend>
                ${['*', ...WEBHOOK_EVENT_NAMES].map(
                  (name) =>
                    html`<label class="checkbox"
                      ><input type="checkbox" name="events" value="${name}" ${chosen.includes(name) ? 'checked' : ''} /> ${
                        name === '*' ? 'All events' : html`<code>${name}</code>`
                      }</label
                    >`,
                )}
              </fieldset>
              ${textField({
                id: 'endpointDescription',
                name: 'description',
                label: 'Description (optional)',
                value: result?.value?.description ?? '',
                extra: html``,
                hint: 'What it is for, e.g. Accounting.',
                errors: undefined,
              })}
              <button type="submit">Add endpoint</button>`,
          )
    }
  </section>`;
}

export function testSection(view: SettingsView): Html {
  const refused = view.result?.form === 'test' ? view.result.error : undefined;
  const result = view.result?.form === 'test' ? view.result.result : undefined;
  const outcome = result?.outcome;
  const ok = outcome?.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  return html`<section id="test-event" class="panel" aria-labelledby="test-title">
    <h2 id="test-title">Test event</h2>
    <p class="lead">Sends a <code>webhook_test</code> event to your endpoint now, signed like every event. It is not retried.</p>
    ${refused ? html`<p class="alert" role="status">${refused}</p>` : ''}
    ${
      outcome
        ? html`<div class="${ok ? 'notice' : 'alert'}" role="status">
            <p>
              ${
                outcome.status !== undefined
                  ? `Your endpoint answered HTTP ${outcome.status} in ${outcome.latencyMs} ms${ok ? '.' : ': a delivery would be retried.'}`
                  : `No answer after ${outcome.latencyMs} ms: ${DELIVERY_ERROR_WORDS[outcome.errorClass ?? 'network']}.`
              }
            </p>
            <p>Event id <code>${result.eventId}</code></p>
            ${outcome.excerpt ? html`<pre class="excerpt">${outcome.excerpt.slice(0, 2000)}</pre>` : ''}
          </div>`
        : ''
    }
    ${form('test-event', '/dashboard/webhooks/test', view.csrf, html`<button type="submit">Send a test event</button>`)}
  </section>`;
}

export function secretSection(view: SettingsView): Html {
  const rotated = view.result?.form === 'secret' ? view.result : undefined;
  return html`<section id="secret" class="panel" aria-labelledby="secret-title">
    <h2 id="secret-title">Signing secret</h2>
    ${
      rotated
        ? html`<div class="notice" role="status">
            <p>Your new secret, shown this once. Store it now:</p>
            <p><code class="secret" data-secret>${rotated.secret}</code></p>
            <p>Your previous secrets keep signing until ${formatTime(rotated.previousSecretsExpireAt)}, so deploy this one before then.</p>
          </div>`
        : html`<p class="lead">Rotating makes a new secret; the previous ones keep signing for a day so you can deploy it without rejecting a delivery.</p>`
    }
    ${form('secret', '/dashboard/webhooks/rotate-secret', view.csrf, html`<button type="submit">Rotate the secret</button>`)}
  </section>`;
}

export function domainsSection(view: SettingsView): Html {
  const result = view.result?.form === 'domains' ? view.result : undefined;
  const error = result?.error;
  return html`<section id="domains" class="panel" aria-labelledby="domains-title">
    <h2 id="domains-title">Allowed domains</h2>
    ${result?.saved ? html`<p class="notice" role="status">Saved.</p>` : ''}
    ${form(
      'domains',
      '/dashboard/webhooks/domains',
      view.csrf,
      html`<div class="field ${error ? 'invalid' : ''}">
          <label for="domainsField">Domains, one per line</label>
          <textarea
            id="domainsField"
            name="domains"
            rows="4"
            spellcheck="false"
            aria-describedby="domains-hint${error ? ' domains-error' : ''}"
            ${error ? html`aria-invalid="true" autofocus` : ''}
          >
${result?.value ?? view.merchant.domains.join('\n')}</textarea>
          <p class="hint" id="domains-hint">
            Your store URL, logo and return URLs must be on one of these hosts or their subdomains (checked in production). Plain host names:
            <code>shop.example</code>.
          </p>
          ${fieldErrors('domains-error', error)}
        </div>
        <button type="submit">Save domains</button>`,
    )}
    ${domainVerificationList(view)}
  </section>`;
}

const VERIFIED_BY = { 'well-known': 'its well-known file', 'dns-txt': 'its DNS TXT record' } as const;

/**
 * Each domain's proof of control (core/merchants/domain-verification.ts): in production its status
 * and the token to publish, and a button to check again; sandbox does not check domains.
 */
function domainVerificationList(view: SettingsView): Html | string {
  const domains = view.merchant.domainVerification;
  if (domains.length === 0) return '';
  if (view.merchant.environment === 'sandbox')
    return html`<p class="hint">Sandbox does not ask you to verify these domains; production will, before it takes a cart on them.</p>`;
  const checked = view.result?.form === 'domains' && view.result.checked;
  return html`<h3 id="domain-verification-title">Verification</h3>
    ${checked ? html`<p class="notice" role="status">Checked.</p>` : ''}
    <p class="hint">
      Production takes carts only on domains you have verified. For each, publish its token on a line of its own at
      <code>https://&lt;domain&gt;/.well-known/hosted-checkout-verification</code>, or as a DNS TXT record; then check. We check again every day: keep it
      published.
    </p>
    <ul class="domain-verification" aria-labelledby="domain-verification-title">
      ${domains.map(
        (d) =>
          html`<li data-domain="${d.domain}" data-status="${d.status}">
            <strong>${d.domain}</strong>:
            ${
              d.status === 'verified'
                ? html`verified through ${VERIFIED_BY[d.verifiedBy ?? 'well-known']}${d.checkedAt ? html`, last checked ${formatTime(d.checkedAt)}` : ''}.`
                : html`<em>not verified</em>${d.problem ? html` (${d.problem})` : d.checkedAt ? '' : ' (not checked yet)'}.`
            }
            <dl>
              <dt>Token</dt>
              <dd><code>${d.token}</code></dd>
              <dt>File</dt>
              <dd><code>${d.wellKnownUrl}</code></dd>
              <dt>Or DNS TXT</dt>
              <dd><code>${d.txtRecord.name}</code> <code>${d.txtRecord.value}</code></dd>
            </dl>
          </li>`,
      )}
    </ul>
    ${form('domains', '/dashboard/webhooks/domains/verify', view.csrf, html`<button type="submit">Check now</button>`)}`;
}

/** The brand colour, and the colours the checkout page will use for it, with the reason when they differ. */
export function brandSection(view: SettingsView): Html {
  const result = view.result?.form === 'brand' ? view.result : undefined;
  const error = result?.error;
  const palette = view.merchant.brandPalette;
  return html`<section id="brand" class="panel" aria-labelledby="brand-title">
    <h2 id="brand-title">Brand colour</h2>
    ${result?.saved ? html`<p class="notice" role="status">Saved. New page loads use it.</p>` : ''}
    ${
      palette
        ? html`<p id="brand-explanation" data-adjusted="${String(palette.adjusted)}">${palette.explanation}</p>
            <dl class="facts">
              <dt>Buttons, links, current step</dt>
              <dd><code data-colour="accent">${palette.accent}</code></dd>
              <dt>Button under the pointer</dt>
              <dd><code>${palette.accentDark}</code></dd>
              <dt>Focus ring</dt>
              <dd><code data-colour="focus">${palette.focus}</code> (${palette.contrast.focus}:1)</dd>
            </dl>`
        : html`<p>None set: the checkout page uses its own colours.</p>`
    }
    ${form(
      'brand',
      '/dashboard/webhooks/brand',
      view.csrf,
      html`${textField({
          id: 'brandField',
          name: 'brandColour',
          label: 'Colour (hex)',
          value: result?.value ?? view.merchant.brandColour ?? '',
          extra: html`autocomplete="off"`,
          hint: html`Such as <code>#1557b0</code>. A colour too light to read on the page is darkened until every text and control passes WCAG 2.2 AA (4.5:1);
            leave empty for the page's own colours.`,
          errors: error ? [error] : undefined,
        })} <button type="submit">Save colour</button>`,
    )}
  </section>`;
}

/** Whether the checkout offers customers their saved cards after the code (docs/saved-cards.md). */
export function savedCardsSection(view: SettingsView): Html {
  const saved = view.result?.form === 'savedCards' && view.result.saved;
  const allowed = view.merchant.savedCardsAllowed;
  return html`<section id="savedCards" class="panel" aria-labelledby="saved-cards-title">
    <h2 id="saved-cards-title">Saved cards</h2>
    ${saved ? html`<p class="notice" role="status">Saved. New page loads use it.</p>` : ''}
    <p>
      ${
        allowed
          ? 'On: after the one-time code, your checkout offers customers the cards they saved with Hosted Checkout, and the choice to save theirs. Orders say payment.savedCard.'
          : 'Off: your checkout neither offers saved cards nor the choice to save one.'
      }
      You never see a customer’s saved cards or their references.
    </p>
    ${form(
      'savedCards',
      '/dashboard/webhooks/saved-cards',
      view.csrf,
      html`<input type="hidden" name="savedCardsAllowed" value="${allowed ? 'false' : 'true'}" />
        <button type="submit">${allowed ? 'Turn saved cards off' : 'Turn saved cards on'}</button>`,
    )}
  </section>`;
}

/** A delivery's last attempt in a few words: what the merchant looks at first. */
function lastAttempt(event: EventDeliveries): string {
  const last = event.attempts.at(-1);
  if (!last) return 'not attempted yet';
  return `${last.httpStatus !== null ? `HTTP ${last.httpStatus}` : words(last.errorClass ?? 'no answer')}, ${formatTime(last.attemptedAt)}`;
}

/** Posts to `action` (the settings page's replay unless given) and swaps the section `target`. */
export function replayButton(eventId: string, csrf: string, target: string, action = `/dashboard/events/${encodeURIComponent(eventId)}/replay`): Html {
  return html`<form method="post" action="${action}" hx-post="${action}" hx-target="#${target}" hx-swap="outerHTML" class="inline-form">
    ${csrfField(csrf)}<button type="submit" class="small" aria-label="Replay ${eventId}">Replay</button>
  </form>`;
}

export function deliveriesSection(view: SettingsView): Html {
  const replayed = view.result?.form === 'replay' ? view.result : undefined;
  return html`<section id="deliveries" class="panel" aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">Recent deliveries</h2>
    ${
      replayed
        ? html`<p class="${replayed.error ? 'alert' : 'notice'}" role="status">
            ${replayed.error ?? html`Event <code>${replayed.eventId}</code> (same id and body, fresh signature): ${(replayed.said ?? []).join('; ')}.`}
          </p>`
        : ''
    }
    ${
      view.deliveries.length === 0
        ? html`<p class="lead">No events yet.</p>`
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Deliveries table">
            <table class="reflow">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Order</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col"><span class="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${view.deliveries.map(
                  (e) =>
                    html`<tr>
                      <td>${cellLabel('Event')}<code>${e.event}</code></td>
                      <td>${cellLabel('Order')}<a href="/dashboard/orders/${encodeURIComponent(e.cartId)}">${e.cartId}</a></td>
                      <td>${cellLabel('Status')}<span class="badge-status status-${e.status}">${words(e.status)}</span></td>
                      <td>${cellLabel('Last attempt')}${lastAttempt(e)}</td>
                      <td>${replayButton(e.eventId, view.csrf, 'deliveries')}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

export function settingsPage(view: SettingsView & { who: string }): Html {
  return dashboardLayout({
    title: 'Webhooks',
    signedIn: { who: view.who, role: 'merchant', section: 'webhooks', csrf: view.csrf },
    body: html`<h1>Webhooks</h1>
      <div class="stack">
        ${endpointSection(view)} ${endpointsSection(view)} ${testSection(view)} ${secretSection(view)} ${domainsSection(view)} ${brandSection(view)}
        ${savedCardsSection(view)} ${deliveriesSection(view)}
      </div>`,
  });
}
