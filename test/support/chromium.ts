/// <reference lib="dom" />
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';

/** Debian's package: `.ci/run` installs it when missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Outside CI a machine without Chromium skips the browser tests and says why; under CI=true the
 * suite must not pass without them, so the launch runs anyway and fails loudly.
 */
export function skipWithoutChromium(): boolean {
  if (existsSync(CHROMIUM_PATH) || process.env.CI === 'true') return false;
  console.warn(`browser tests skipped: no Chromium at ${CHROMIUM_PATH} (install Debian's "chromium" package, or set CHROMIUM_PATH)`);
  return true;
}

/** Headless Chromium; Playwright gives every launch a fresh temporary user-data-dir. `extraArgs`: e.g. `--host-resolver-rules`. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's "chromium" package (CI=true requires the browser tests to run)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...ARGS, ...extraArgs] });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** alert/confirm/prompt dialogs opened by the page and not expected: merchant text must never open one. */
  dialogs: string[];
  /** The page's next dialog is ours (a confirmation): answered so, and resolved with its message. */
  expectDialog(answer: 'accept' | 'dismiss'): Promise<string>;
  /** Console errors, which is where CSP violations land. */
  consoleErrors: string[];
  /** The page's requests and their answers, timed (method, URL and status; no body): what to print when a wait times out. */
  exchanges: string[];
}

/** A fresh context (no cookies shared between tests), phone-sized unless told otherwise; `locale` sets the browser's language (Accept-Language). */
export async function openPage(browser: Browser, options: { width?: number; javaScriptEnabled?: boolean; locale?: string } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 375, height: 812 },
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    ...(options.locale ? { locale: options.locale } : {}),
  });
  // Merchant images (https://store.example/…) cannot load on this machine: fail them at once.
  await context.route(/^https:\/\//, (route) => route.abort());
  const page = await context.newPage();
  const dialogs: string[] = [];
  const expected: Array<{ answer: 'accept' | 'dismiss'; opened: (message: string) => void }> = [];
  const consoleErrors: string[] = [];
  page.on('dialog', (dialog) => {
    const ours = expected.shift();
    if (ours) ours.opened(dialog.message());
    else dialogs.push(dialog.message());
    void (ours?.answer === 'accept' ? dialog.accept() : dialog.dismiss());
  });
  page.on('console', (message) => {
    // The aborted merchant images are expected; anything else is not.
    if (message.type() === 'error' && !message.text().includes('net::ERR_FAILED')) consoleErrors.push(message.text());
  });
  const exchanges: string[] = [];
  const stamp = () => new Date().toISOString().slice(11);
  page.on('request', (request) => exchanges.push(`${stamp()} → ${request.method()} ${shortened(request.url())}`));
  page.on('response', (response) => {
    const redirect = response.headers()['hx-redirect'] ?? response.headers().location;
    exchanges.push(`${stamp()} ← ${response.status()} ${shortened(response.url())}${redirect ? ` → ${redirect}` : ''}`);
  });
  page.on('requestfailed', (request) => exchanges.push(`${stamp()} ✗ ${shortened(request.url())} ${request.failure()?.errorText ?? ''}`));
  const expectDialog = (answer: 'accept' | 'dismiss') => new Promise<string>((opened) => expected.push({ answer, opened }));
  return { context, page, dialogs, expectDialog, consoleErrors, exchanges };
}

/** Long data: URLs (inline images) cut short. */
const shortened = (url: string) => (url.length > 160 ? `${url.slice(0, 160)}…` : url);

/**
 * As a customer would: act on a step once it is ready, when htmx has settled the swap and wired up its
 * form. Typed and posted sooner, a card step answered 422 in a whole-suite run, with no update sent.
 * Without `field`, call it once the step is shown. With it, the step swapped in by the last click is
 * also awaited: checkout.js puts the cursor in that field once settled (a page load puts it nowhere).
 * Playwright's own waits, not vitest's, so concurrent tests may call it.
 */
export async function untilStepReady(page: Page | Frame, field?: { id: string } | { name: string }): Promise<void> {
  // Without JavaScript each step is a page load, which the click that posted it already waited for.
  if (!(await page.evaluate(() => 'htmx' in window))) return;
  if (field) {
    const [attribute, value] = 'id' in field ? ['id', field.id] : ['name', field.name];
    // The step may still be on its way from the server: as long as a page the test waits for.
    await page.waitForFunction(([a, v]) => document.activeElement?.getAttribute(a) === v, [attribute, value] as const, { timeout: 10_000 });
  }
  await page.waitForFunction(() => document.querySelector('.htmx-swapping, .htmx-settling') === null, undefined, { timeout: 5_000 });
}

/** Wider than the viewport means the customer scrolls sideways. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}
