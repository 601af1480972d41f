import { expect } from 'chai';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { chromiumOrSkip } from './chromium.js';
import type { TestServer } from './harness.js';

/** The Chromium of a browser suite, there once the suite's `before` hook has run. */
export interface SuiteBrowser {
  browser: Browser;
}

/**
 * Registers a suite's Chromium (call it in the `describe`): launched before its tests (the suite skipped,
 * saying why, where the machine has none), closed after them; one for every adapter's tests.
 */
export function suiteChromium(): SuiteBrowser {
  const suite = {} as SuiteBrowser;
  before(async function () {
    suite.browser = await chromiumOrSkip(this);
  });
  after(async () => {
    await suite.browser?.close();
  });
  return suite;
}

/** A page of a fresh browser context, and what went wrong on it so far. */
export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Every CSP violation, script error and request outside the origin, in words: a test expects none. */
  problems: string[];
}

/**
 * A page in a fresh context of `browser` (no cookie) that records a CSP violation, a script error or,
 * when `origin` is given, a request outside it (or a `blob:` of the page's own) in its `problems`.
 */
export async function watchedPage(
  browser: Browser,
  options: { viewport: { width: number; height: number }; origin?: string; acceptDownloads?: boolean },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: options.viewport, acceptDownloads: options.acceptDownloads });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const { origin } = options;
  if (origin !== undefined) {
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${origin}/`) && !url.startsWith('blob:')) problems.push(`a request outside the origin: ${url}`);
    });
  }
  return { context, page, problems };
}

/** A test's server and page, there once its `beforeEach` hook has run. */
export interface ServerAndPage {
  server: TestServer;
  page: Page;
}

/**
 * Registers, for each test of the suite (call it in the `describe`), a server that `start` starts and a
 * page of `viewport` in the suite's Chromium; both closed after the test.
 */
export function serverAndPage(
  chromium: SuiteBrowser,
  start: () => Promise<TestServer>,
  viewport: { width: number; height: number },
): ServerAndPage {
  const each = {} as ServerAndPage;
  beforeEach(async () => {
    each.server = await start();
    each.page = await chromium.browser.newPage({ viewport });
  });
  afterEach(async () => {
    await each.page?.close();
    await each.server?.close();
  });
  return each;
}

/**
 * On a sign-in page: five wrong secrets (`wrong(1)` to `wrong(5)`) in the field labelled `field`, each
 * refused with an alert that says `refused`, then `right`; resolves with the answer to that last sign-in.
 */
export async function fiveWrongThenRight(
  page: Page,
  options: { field: string; wrong: (attempt: number) => string; refused: string; right: string },
): Promise<Response> {
  const { field, wrong, refused, right } = options;
  for (let attempt = 1; attempt <= 5; attempt++) {
    await page.getByLabel(field).fill(wrong(attempt));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').innerText()).to.include(refused);
  }
  await page.getByLabel(field).fill(right);
  const [answer] = await Promise.all([
    page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/sign-in')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  return answer;
}
