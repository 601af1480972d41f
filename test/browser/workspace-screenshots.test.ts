import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumOrSkip } from '../support/chromium.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';

const OWNER = 'acct-greenleaf';
const LAPTOP = { width: 1200, height: 800 };
const PHONE = { width: 360, height: 780 };

const LETTER = `Dear friends of Greenleaf,

Spring has arrived at the nursery, and with it the first of this year's seedlings. Thank you for the notes, the photos of your gardens and the questions you sent us over the winter: they shaped almost everything you will find on our shelves this season.

This year we are adding twelve heirloom tomato varieties, a range of drought-tolerant perennials, and a small workshop corner where our growers will show you how to pot, prune and propagate.

Come and see us on Saturday, 14 March, from nine o'clock. Coffee is on us.

Warm regards,
The Greenleaf team`;

/** Documents of the screenshots: name, template, favorite, and a text of some length. */
const DOCUMENTS: [string, number, boolean, string][] = [
  ['Interview with our head grower', 1, false, 'Questions and answers about forty years of growing. '.repeat(14)],
  ['Greenhouse safety checklist', 1, false, 'Check the vents, the heaters and the water lines every morning. '.repeat(9)],
  ['Summer hiring plan', 1, true, 'We need four seasonal staff from May to September. '.repeat(11)],
  ['Notes for the autumn catalogue', 1, false, 'Bulbs, hedging and fruit trees lead the autumn pages. '.repeat(20)],
  ['Workshop programme', 1, false, 'Potting, pruning and propagating, one Saturday a month. '.repeat(6)],
  ['Letter to our early customers', 1, true, LETTER],
];

/**
 * The screenshots of docs/workspace.md, taken when `DOSSIER_SCREENSHOT_DIR` names where to put them
 * (`DOSSIER_SCREENSHOT_DIR=docs npx mocha dist/test/browser/workspace-screenshots.test.js`): each view
 * with the documents of a small business (a document in dark mode too, and the list on a phone). Skipped otherwise: the behaviour
 * they show is tested by workspace.test.ts.
 */
describe('the documents workspace: screenshots for the docs', function () {
  this.timeout(120_000);
  const shots = process.env.DOSSIER_SCREENSHOT_DIR;
  let browser: Browser;
  let openai: TestOpenAiServer;
  let server: TestServer;

  before(async function () {
    if (shots === undefined) {
      console.log('    (skipped: set DOSSIER_SCREENSHOT_DIR to take the screenshots of docs/workspace.md)');
      this.skip();
    }
    mkdirSync(shots, { recursive: true });
    browser = await chromiumOrSkip(this);
    openai = await startOpenAiServer({ kind: 'answer', text: 'Draft.' });
    server = await startTestServer(
      { generator: 'openai', openai: { baseUrl: openai.baseUrl, model: 'gpt-4o-mini' } },
      { adapter: 'koa' },
    );
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await openai?.close();
  });

  async function shoot(page: Page, name: string, fullPage = true): Promise<void> {
    await page.screenshot({ path: join(shots!, `workspace-${name}.png`), fullPage });
  }

  it('takes each view', async () => {
    const { secret } = await server.dossier.keys.create({ name: 'greenleaf-writers', owner: OWNER, scopes: ['documents'] });
    const ids: number[] = [];
    for (const [name, templateId, favorite, result] of DOCUMENTS) {
      const { id } = await server.dossier.documents.create(OWNER, {
        name,
        prompt: `Write: ${name}`,
        creativity: 0.5,
        templateId,
      });
      await server.dossier.documents.update(OWNER, id, { favorite, result });
      ids.push(id);
    }
    const base = `${server.url}/workspace`;
    const context = await browser.newContext({ viewport: LAPTOP });
    const page = await context.newPage();
    await page.goto(base);
    await page.getByLabel('API key').waitFor();
    await shoot(page, 'sign-in', false);
    await page.getByLabel('API key').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Letter to our early customers' }).waitFor();
    await page.mouse.move(0, 0);
    await shoot(page, 'list');

    await page.goto(`${base}/documents/${ids.at(-1)}`);
    await page.getByLabel('Text').waitFor();
    await shoot(page, 'document');
    await page.getByRole('button', { name: 'Delete document' }).click();
    await page.getByRole('dialog').waitFor();
    await shoot(page, 'delete', false);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.mouse.move(0, 0); // no button under the pointer: none shown hovered
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'document-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A new document being written: the generator holds after a few pieces, then the writer stops it.
    openai.behaviour = { kind: 'stream', pieces: LETTER.split(/(?<= )/), delayMs: 1, hold: 60 };
    await page.goto(`${base}/new`);
    await page.getByLabel('Find a template').fill('blog');
    await page.getByRole('radio', { name: 'Blog post' }).check();
    await page.getByLabel('Name', { exact: true }).fill('Spring opening announcement');
    await page
      .getByLabel('What should it say?')
      .fill(
        'Tell our customers that the nursery reopens on 14 March, with heirloom tomatoes, drought-tolerant perennials and a workshop corner.',
      );
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.locator('[data-result]').getByText('first of this year').waitFor();
    await shoot(page, 'new');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped. Nothing was saved.').waitFor();

    await page.setViewportSize(PHONE);
    await page.goto(base);
    await page.getByRole('link', { name: 'Letter to our early customers' }).waitFor();
    await shoot(page, 'list-phone');
    await context.close();
  });
});
