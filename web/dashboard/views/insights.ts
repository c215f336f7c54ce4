import { html } from 'hono/html';
import {
  FUNNEL_ENDINGS,
  INSIGHT_PERIODS,
  type FunnelRow,
  type InsightPeriod,
  type SavedCardShare,
  type InsightSummary,
} from '../../../core/insights/insights.js';
import type { MerchantSummary } from '../../../core/merchants/merchants.js';
import type { EndpointHealth } from '../../../core/webhooks/event-history.js';
import { formatMoney, formatTime } from './format.js';
import { FUNNEL_LABELS, funnelChart } from './funnel-chart.js';
import { dashboardLayout, type Html } from './layout.js';
import { scrollingTable } from './table.js';

export type InsightPage = 'overview' | 'funnel' | 'webhooks';

const PAGES: Array<{ page: InsightPage; path: string; label: string }> = [
  { page: 'overview', path: '', label: 'Overview' },
  { page: 'funnel', path: '/funnel', label: 'Funnel' },
  { page: 'webhooks', path: '/webhooks', label: 'Webhook health' },
];

const PERIOD_LABELS: Record<InsightPeriod, string> = { 1: 'Last 24 hours', 7: 'Last 7 days', 30: 'Last 30 days' };

/** Where the insights are and what they show: the merchant's own, or an operator's (every merchant, or the one chosen). */
export interface InsightsFrame {
  page: InsightPage;
  /** `/dashboard/insights` or `/dashboard/operator/insights`. */
  base: string;
  days: InsightPeriod;
  /** Refused query values, said above the figures. */
  problem?: string;
  operator?: { merchants: MerchantSummary[]; merchant: string };
}

function href(frame: InsightsFrame, page: InsightPage, days: InsightPeriod): string {
  const query = new URLSearchParams({ days: String(days) });
  if (frame.operator?.merchant) query.set('merchant', frame.operator.merchant);
  return `${frame.base}${PAGES.find((p) => p.page === page)!.path}?${query.toString()}`;
}

const swap = (target: string) => html`hx-get="${target}" hx-target="#insights-view" hx-swap="outerHTML" hx-push-url="true"`;

function framing(frame: InsightsFrame): Html {
  return html`<nav class="insight-tabs" aria-label="Insights">
      <ul>
        ${PAGES.map(
          (p) => html`<li><a href="${href(frame, p.page, frame.days)}" ${p.page === frame.page ? html`aria-current="page"` : ''}>${p.label}</a></li>`,
        )}
      </ul>
    </nav>
    ${frame.operator ? merchantFilter(frame, frame.operator) : ''}
    <nav class="insight-periods" aria-label="Period">
      <ul>
        ${INSIGHT_PERIODS.map(
          (d) =>
            html`<li>
              <a href="${href(frame, frame.page, d)}" ${swap(href(frame, frame.page, d))} ${d === frame.days ? html`aria-current="true"` : ''}
                >${PERIOD_LABELS[d]}</a
              >
            </li>`,
        )}
      </ul>
    </nav>
    ${frame.problem ? html`<p class="alert" role="alert">${frame.problem}</p>` : ''}`;
}

function merchantFilter(frame: InsightsFrame, operator: NonNullable<InsightsFrame['operator']>): Html {
  const action = href(frame, frame.page, frame.days).split('?')[0]!;
  return html`<form class="panel filters insight-filter" method="get" action="${action}" aria-label="Whose insights">
    <input type="hidden" name="days" value="${frame.days}" />
    <div class="field">
      <label for="insights-merchant">Merchant</label>
      <select id="insights-merchant" name="merchant">
        <option value="">Every merchant</option>
        ${operator.merchants.map(
          (m) => html`<option value="${m.platformUuid}" ${m.platformUuid === operator.merchant ? 'selected' : ''}>${m.name} (${m.environment})</option>`,
        )}
      </select>
    </div>
    <button type="submit">Show</button>
  </form>`;
}

const since = (iso: string) => html`<p class="muted insight-since">Since ${formatTime(iso)}.</p>`;

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((part / whole) * 100).toFixed(1)}%`;
}

export function overviewView(summary: InsightSummary): Html {
  return html`<section aria-labelledby="overview-title">
    <h2 id="overview-title">Overview</h2>
    ${since(summary.since)}
    <dl class="insight-figures">
      <div>
        <dt>Sessions</dt>
        <dd data-figure="sessions">${summary.sessions}</dd>
      </div>
      <div>
        <dt>Paid</dt>
        <dd data-figure="paid">${summary.paid}</dd>
      </div>
      <div>
        <dt>Conversion</dt>
        <dd data-figure="conversion">${summary.conversion === null ? '–' : percent(summary.paid, summary.sessions)}</dd>
      </div>
      <div>
        <dt>Retries after a decline</dt>
        <dd data-figure="retries">${summary.retries.sessions}</dd>
      </div>
      <div>
        <dt>Paid on a retry</dt>
        <dd data-figure="retries-paid">${summary.retries.paid}</dd>
      </div>
    </dl>
    <h3>Revenue</h3>
    ${scrollingTable({
      label: 'Revenue per currency',
      empty: 'No paid session in this period.',
      columns: ['Currency', 'Paid sessions charged', 'Of it on a retry'],
      rows: summary.revenue,
      cells: (r) =>
        html`<td>${r.currency}</td>
          <td data-revenue="${r.currency}" data-minor="${r.amount}">${formatMoney(r.amount, r.currency)}</td>
          <td data-retried-revenue="${r.currency}" data-minor="${r.retried}">${formatMoney(r.retried, r.currency)}</td>`,
    })}
    <h3>Refunds</h3>
    ${scrollingTable({
      label: 'Refunds per currency',
      empty: 'No refund succeeded in this period.',
      columns: ['Currency', 'Refunds', 'Refunded'],
      rows: summary.refunds,
      cells: (r) =>
        html`<td>${r.currency}</td>
          <td data-refunds="${r.currency}">${r.refunds}</td>
          <td data-refunded="${r.currency}" data-minor="${r.amount}">${formatMoney(r.amount, r.currency)}</td>`,
    })}
    <h3>Payment links</h3>
    <dl class="insight-figures">
      <div>
        <dt>Sessions from links</dt>
        <dd data-figure="link-sessions">${summary.links.sessions}</dd>
      </div>
      <div>
        <dt>Paid from links</dt>
        <dd data-figure="link-paid">${summary.links.paid}</dd>
      </div>
    </dl>
    ${scrollingTable({
      label: 'Payment link revenue per currency',
      empty: 'No session from a payment link was paid in this period.',
      columns: ['Currency', 'Paid link sessions charged'],
      rows: summary.links.revenue,
      cells: (r) =>
        html`<td>${r.currency}</td>
          <td data-link-revenue="${r.currency}" data-minor="${r.amount}">${formatMoney(r.amount, r.currency)}</td>`,
    })}
    <h3>Recovered carts</h3>
    <dl class="insight-figures">
      <div>
        <dt>Sessions from recovery links</dt>
        <dd data-figure="recovered-sessions">${summary.recoveries.sessions}</dd>
      </div>
      <div>
        <dt>Paid after recovery</dt>
        <dd data-figure="recovered-paid">${summary.recoveries.paid}</dd>
      </div>
    </dl>
    ${scrollingTable({
      label: 'Recovered revenue per currency',
      empty: 'No recovered session was paid in this period.',
      columns: ['Currency', 'Paid recovered sessions charged'],
      rows: summary.recoveries.revenue,
      cells: (r) =>
        html`<td>${r.currency}</td>
          <td data-recovered-revenue="${r.currency}" data-minor="${r.amount}">${formatMoney(r.amount, r.currency)}</td>`,
    })}
  </section>`;
}

const ENDING_LABELS: Record<(typeof FUNNEL_ENDINGS)[number], string> = {
  abandoned: 'Abandoned',
  cancelled: 'Cancelled',
  failed: 'Failed',
  open: 'Still open',
};

export function funnelView(funnel: { since: string; steps: FunnelRow[]; savedCards: SavedCardShare }): Html {
  const created = funnel.steps[0]?.reached ?? 0;
  return html`<section aria-labelledby="funnel-title">
    <h2 id="funnel-title">Funnel</h2>
    ${since(funnel.since)}
    <div class="funnel">
      <div class="funnel-figure">${funnelChart(funnel.steps)}</div>
      ${scrollingTable({
        label: 'Funnel table',
        empty: 'No session in this period.',
        columns: ['Step', 'Reached', 'Of created', ...FUNNEL_ENDINGS.map((e) => ENDING_LABELS[e])],
        rows: created === 0 ? [] : funnel.steps,
        cells: (s) =>
          html`<th scope="row">${FUNNEL_LABELS[s.step]}</th>
            <td data-reached="${s.step}">${s.reached}</td>
            <td>${percent(s.reached, created)}</td>
            ${FUNNEL_ENDINGS.map((e) => html`<td data-stopped="${s.step}:${e}">${s.step === 'paid' ? '' : s.stoppedHere[e]}</td>`)}`,
      })}
    </div>
    <p class="muted">
      Each session counts at every step it reached. Abandoned, cancelled, failed and still open count the sessions whose furthest step this was.
    </p>
    <p data-saved-card-share="${funnel.savedCards.withSavedCard}/${funnel.savedCards.paid}">
      Paid with a saved card: ${funnel.savedCards.withSavedCard} of ${funnel.savedCards.paid} payments
      (${percent(funnel.savedCards.withSavedCard, funnel.savedCards.paid)}).
    </p>
  </section>`;
}

export function webhookHealthView(health: { since: string; endpoints: EndpointHealth[] }, merchantNames?: Map<string, string>): Html {
  const columns = [
    'Endpoint',
    ...(merchantNames ? ['Merchant'] : []),
    'Attempts',
    'Success rate',
    'p50 delivery latency',
    'p99 delivery latency',
    'Last failure',
  ];
  return html`<section aria-labelledby="health-title">
    <h2 id="health-title">Webhook health</h2>
    ${since(health.since)}
    ${scrollingTable({
      label: 'Webhook health table',
      empty: 'No delivery attempt in this period.',
      columns,
      rows: health.endpoints,
      cells: (e) =>
        html`<td data-endpoint-key="${e.endpointKey}" data-success-rate="${e.succeeded / e.attempts}"><span class="url">${e.url}</span></td>
          ${merchantNames ? html`<td>${merchantNames.get(e.platformUuid) ?? e.platformUuid}</td>` : ''}
          <td>${e.attempts}</td>
          <td><span class="badge-status ${e.succeeded === e.attempts ? 'status-ok' : 'status-bad'}">${percent(e.succeeded, e.attempts)}</span></td>
          <td>${e.p50LatencyMs} ms</td>
          <td>${e.p99LatencyMs} ms</td>
          <td>${e.lastFailureAt ? formatTime(e.lastFailureAt) : html`<span class="muted">none</span>`}</td>`,
    })}
    <p class="muted">Failing endpoints first. Latency is each attempt's time from request to answer.</p>
  </section>`;
}

/** The figures and their frame: what htmx swaps when another period is chosen. */
export function insightsView(frame: InsightsFrame, figures: Html): Html {
  return html`<div id="insights-view">${framing(frame)} ${figures}</div>`;
}

export function insightsPage(frame: InsightsFrame, figures: Html, signedIn: { who: string; role: 'merchant' | 'operator'; csrf: string }): Html {
  return dashboardLayout({
    title: 'Insights',
    signedIn: { ...signedIn, section: 'insights' },
    body: html`<h1>Insights</h1>
      ${insightsView(frame, figures)}`,
  });
}
