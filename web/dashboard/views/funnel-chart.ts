import { html } from 'hono/html';
import type { FunnelRow } from '../../../core/insights/insights.js';
import type { Html } from './layout.js';

export const FUNNEL_LABELS: Record<FunnelRow['step'], string> = {
  created: 'Created',
  page_opened: 'Page opened',
  code_sent: 'Code sent',
  code_verified: 'Code verified',
  pay_attempted: 'Pay attempted',
  paid: 'Paid',
};

const WIDTH = 600;
const LABEL_WIDTH = 150;
const ROW_HEIGHT = 44;
const BAR_HEIGHT = 28;

/**
 * The funnel as horizontal bars, one per step, as long as the share of created sessions that reached
 * it. Drawn with attributes only (the CSP allows no inline style) and scaled by its viewBox; the
 * table beside it carries the same numbers for anyone who cannot see it.
 */
export function funnelChart(steps: readonly FunnelRow[]): Html {
  const created = steps[0]?.reached ?? 0;
  const barSpace = WIDTH - LABEL_WIDTH - 60;
  const height = steps.length * ROW_HEIGHT;
  const summary = steps.map((s) => `${FUNNEL_LABELS[s.step]} ${s.reached}`).join(', ');
  return html`<svg class="funnel-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="funnel-chart-title">
    <title id="funnel-chart-title">Funnel: ${summary}</title>
    ${steps.map((s, i) => {
      const y = i * ROW_HEIGHT;
      const width = created === 0 ? 0 : Math.max(s.reached > 0 ? 2 : 0, Math.round((s.reached / created) * barSpace));
      return html`<g data-funnel-bar="${s.step}">
        <text x="0" y="${y + ROW_HEIGHT / 2 + 5}" font-size="18" fill="#1a1f36">${FUNNEL_LABELS[s.step]}</text>
        <rect x="${LABEL_WIDTH}" y="${y + (ROW_HEIGHT - BAR_HEIGHT) / 2}" width="${barSpace}" height="${BAR_HEIGHT}" rx="4" fill="#e3e8ee"></rect>
        <rect x="${LABEL_WIDTH}" y="${y + (ROW_HEIGHT - BAR_HEIGHT) / 2}" width="${width}" height="${BAR_HEIGHT}" rx="4" fill="#4b45c6"></rect>
        <text x="${LABEL_WIDTH + width + 8}" y="${y + ROW_HEIGHT / 2 + 5}" font-size="18" fill="#1a1f36">${s.reached}</text>
      </g>`;
    })}
  </svg>`;
}
