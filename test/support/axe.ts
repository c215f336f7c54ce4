/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

/** The WCAG 2.2 AA rule set, by axe-core's tags. */
export const WCAG_22_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
/**
 * axe-core's rules that are not WCAG success criteria but what they ask for is: one h1
 * (page-has-heading-one), landmarks at the top level and all content inside one (region).
 */
export const BEST_PRACTICE_TAG = 'best-practice';

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** One entry per failing element: its selector and axe's explanation. */
  nodes: { target: string; summary: string }[];
}

let source: string | undefined;

/** axe.min.js from the axe-core package, read once. */
function axeSource(): string {
  if (source === undefined) {
    const require = createRequire(import.meta.url);
    source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  }
  return source;
}

/**
 * Runs axe-core on the page once it has loaded and returns the violations of the rules with these
 * tags (WCAG 2.2 AA unless told). Before its load event a page just navigated to may still be
 * waiting for its stylesheet, and axe would measure its targets unstyled (a CI run read the
 * dashboard's links 17 px high right after a form's redirect). The page's CSP
 * forbids inline scripts, so addScriptTag({ content }) would be refused: axe's source is evaluated
 * through the DevTools protocol instead (page.evaluate), which the page's CSP does not govern.
 */
export async function axeViolations(page: Page | Frame, tags: string[] = WCAG_22_AA_TAGS): Promise<AxeViolation[]> {
  await page.waitForLoadState('load');
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axeSource());
  return page.evaluate(async (tags) => {
    type AxeNode = { target: unknown[]; failureSummary?: string };
    type AxeResult = { id: string; impact: string | null; help: string; nodes: AxeNode[] };
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeResult[] }> } }).axe;
    const results = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.map(String).join(' '), summary: node.failureSummary ?? '' })),
    }));
  }, tags);
}

/** One line per violation and element, for a failure message a person can act on. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id} (${violation.impact ?? 'unknown'}): ${node.target} — ${node.summary.replace(/\s+/g, ' ').trim()}`),
    )
    .join('\n');
}
