import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from './axe.js';
import { horizontalOverflow } from './chromium.js';

/** axe-core's WCAG 2.2 AA rules and best practices find nothing at 375 and 1280 px, and nothing scrolls sideways. */
export async function expectAccessible(page: Page, what: string) {
  const original = page.viewportSize()!;
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: original.height });
    const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
    expect(
      violations.map((v) => `${v.id} ×${v.nodes.length}`),
      `${what} at ${width}px:\n${describeViolations(violations)}`,
    ).toEqual([]);
    expect(await horizontalOverflow(page), `${what} at ${width}px: sideways scroll`).toBe(0);
  }
  await page.setViewportSize(original);
}
