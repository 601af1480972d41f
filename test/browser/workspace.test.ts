import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { findDocx } from '../../adapters/http/workspace/assets.js';
import { viewPage } from '../../adapters/http/workspace/page.js';
import type { ApiKey } from '../../lib/index.js';
import { seriousViolations } from '../support/axe.js';
import { fiveWrongThenRight, suiteChromium, watchedPage, type WatchedPage } from '../support/browser.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { startOpenAiServer, type TestOpenAiServer } from '../support/openai-server.js';
import { until } from '../support/until.js';
import { unzip } from '../support/zip.js';

const LAPTOP = { width: 1280, height: 860 };
const PHONE = { width: 360, height: 780 };
const OWNER = 'acct-writer';
const require = createRequire(import.meta.url);
const PIECES = ['Spring ', 'is ', 'here: ', 'our ', 'new ', 'garden ', 'range ', 'lands ', 'on ', 'Monday.'];

/**
 * The documents workspace (docs/contract.md §14) in a real browser, driven by accessible names, through
 * every adapter: Koa and Fastify at the root, Express and fetch (Hono) under a prefix. Every request the
 * pages make is checked to stay on the server's origin, and every CSP violation or script error fails the
 * test. (docs/workspace.md's screenshots are taken by workspace-screenshots.test.ts.)
 */
describe('the documents workspace in Chromium', function () {
  this.timeout(90_000);
  const chromium = suiteChromium();
  let openai: TestOpenAiServer;

  eachAdapter((adapter) => {
    const prefix = adapter === 'express' || adapter === 'fetch' ? '/dossier' : '';
    let server: TestServer;
    let base: string;

    beforeEach(async () => {
      // A generator of each test's own: a test that holds and releases its stream leaves the next one's hold alone.
      openai = await startOpenAiServer({ kind: 'stream', pieces: PIECES, delayMs: 5 });
      server = await startTestServer({ generator: 'openai', openai: { baseUrl: openai.baseUrl, model: 'test' } }, { prefix });
      base = `${server.url}/workspace`;
    });
    afterEach(async () => {
      await server?.close();
      await openai?.close();
    });

    /** A key of the writer's account (its secret and record). */
    async function writerKey(scopes: ApiKey['scopes'] = ['documents']): Promise<{ secret: string; key: ApiKey }> {
      return server.dossier.keys.create({ name: 'writer', owner: OWNER, scopes });
    }

    /**
     * A fresh browser context (no cookie) whose page fails the test on a CSP violation, a script error
     * or a request outside the server's origin.
     */
    const open = (viewport = LAPTOP): Promise<WatchedPage> =>
      watchedPage(chromium.browser, { viewport, origin: new URL(server.url).origin, acceptDownloads: true });

    async function signIn(page: Page, secret: string, path = ''): Promise<void> {
      await page.goto(`${base}${path}`);
      await page.getByLabel('API key').fill(secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    }

    async function seed(
      count: number,
      templateId = 1,
      name = (i: number) => `Note ${String(i).padStart(2, '0')}`,
    ): Promise<number[]> {
      openai.behaviour = { kind: 'answer', text: 'A short text for the list.' };
      const ids: number[] = [];
      for (let i = 1; i <= count; i++) {
        ids.push(
          (await server.dossier.documents.create(OWNER, { name: name(i), prompt: 'Anything', creativity: 0.5, templateId })).id,
        );
      }
      openai.behaviour = { kind: 'stream', pieces: PIECES, delayMs: 5 };
      return ids;
    }

    /** How many of the writer's documents of a template (as the API, a listing names one; Freestyle by default) are stored. */
    const stored = async (templateId = 1): Promise<number> =>
      (await server.dossier.documents.list(OWNER, { perPage: 100, templateId })).total;

    /** The names of the list's rows, in order. */
    const rowNames = (page: Page): Promise<string[]> => page.locator('tbody th a').allInnerTexts();

    /**
     * Waits until the list shows `names`: the URL changes before the list it names is fetched, and the list
     * before may hold the same links.
     */
    const rowsAre = (page: Page, names: string[]): Promise<void> =>
      until(async () => JSON.stringify(await rowNames(page)) === JSON.stringify(names), `the list shows ${names.join(', ')}`);

    /** How far the page is wider than its window, or a card's content than the card (≤ 0: not at all). */
    const overflow = (page: Page): Promise<number> =>
      page.evaluate(() =>
        Math.max(
          document.documentElement.scrollWidth - window.innerWidth,
          ...[...document.querySelectorAll('.card:not([hidden])')].map((card) => card.scrollWidth - card.clientWidth),
        ),
      );

    it('signs in with a documents key for a session that holds no key, tells refusals apart, ends with the key and signs out', async () => {
      const { secret, key } = await writerKey();
      const lookupOnly = await server.dossier.keys.create({ name: 'lookups', owner: OWNER, scopes: ['lookup'] });
      const revoked = await server.dossier.keys.create({ name: 'old', owner: OWNER });
      await server.dossier.keys.revoke(revoked.key.id);
      const { context, page, problems } = await open();
      try {
        const first = await page.goto(base);
        expect(first?.headers()['content-security-policy'])
          .to.match(/script-src 'self'/)
          .and.not.match(/unsafe-(inline|eval)/);
        await page.getByLabel('API key').fill('dsr_not-a-key-at-all');
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect(await page.getByRole('alert').innerText()).to.include('That key is unknown, expired or has been revoked.');
        await page.getByLabel('API key').fill(revoked.secret);
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect(await page.getByRole('alert').innerText()).to.include('That key is unknown, expired or has been revoked.');
        await page.getByLabel('API key').fill(lookupOnly.secret);
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect(await page.getByRole('alert').innerText()).to.include('does not have the documents scope');
        expect(await context.cookies()).to.deep.equal([]);

        await page.getByLabel('API key').fill(secret);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Documents' }).waitFor();
        const cookies = await context.cookies();
        expect(cookies).to.have.length(1);
        expect(cookies[0]).to.include({ name: 'dossier_workspace', httpOnly: true, sameSite: 'Strict', secure: false });
        expect(cookies[0]!.path).to.equal(`${prefix}/workspace`);
        expect(cookies[0]!.value).to.not.include(secret.slice(4, 20));
        // The key is nowhere the page can read: not in the HTML, storage or a readable cookie.
        expect(await page.content()).to.not.include(secret);
        expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).to.deep.equal([
          '',
          0,
          0,
        ]);

        // A revoked key's session ends at its next action.
        const [id] = await seed(1);
        await page.reload();
        await page.getByRole('link', { name: 'Note 01' }).waitFor();
        await server.dossier.keys.revoke(key.id);
        await page.getByRole('button', { name: 'Favorite: Note 01' }).click();
        await page.getByText('Your session has ended. Sign in again to go on.').waitFor();
        expect((await server.dossier.documents.get(OWNER, id!)).favorite).to.equal(false);
        expect(await context.cookies()).to.deep.equal([]);

        // Sign out ends the session on the server: its cookie opens nothing afterwards.
        const other = await writerKey();
        await signIn(page, other.secret);
        const session = (await context.cookies())[0]!.value;
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('API key').waitFor();
        expect(await context.cookies()).to.deep.equal([]);
        const replay = await fetch(`${base}/api/v1/documents`, { headers: { cookie: `dossier_workspace=${session}` } });
        expect(replay.status).to.equal(401);
        expect(await replay.json()).to.deep.equal({ message: 'Unauthenticated.', status: 401 });
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("refuses other sites' sign-ins and calls, and locks an address out after five wrong keys as the panel does", async () => {
      const { secret } = await writerKey();
      const form = (key: string, headers: Record<string, string>): Promise<Response> =>
        fetch(`${base}/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ key }).toString(),
          redirect: 'manual',
        });
      // Neither Origin nor Sec-Fetch-Site, or another site's: refused before the key is looked at.
      expect((await form(secret, {})).status).to.equal(403);
      expect((await form(secret, { origin: 'http://elsewhere.test' })).status).to.equal(403);
      expect((await form(secret, { 'sec-fetch-site': 'cross-site' })).status).to.equal(403);
      const signedIn = await form(secret, { 'sec-fetch-site': 'same-origin' });
      expect(signedIn.status).to.equal(303);
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(cookie).to.match(/^dossier_workspace=[A-Za-z0-9_-]{43}$/);
      // The session's calls: from the page, they work; from another site, they are refused.
      const list = (headers: Record<string, string>): Promise<Response> =>
        fetch(`${base}/api/v1/documents`, { headers: { cookie, ...headers } });
      expect((await list({ 'sec-fetch-site': 'same-origin' })).status).to.equal(200);
      expect((await list({ 'sec-fetch-site': 'cross-site' })).status).to.equal(403);
      const write = await fetch(`${base}/api/v1/documents`, {
        method: 'POST',
        headers: { cookie, origin: 'http://elsewhere.test', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=x&prompt=y',
      });
      expect(write.status).to.equal(403);
      expect(await stored()).to.equal(0);
      // docx is installed here: its browser build is one of the page's own assets, an ES module.
      const docx = await fetch(`${base}/assets/docx.js`);
      expect(docx.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(await docx.text())
        .to.include('export {')
        .and.not.match(/^import /m);
      // The public API takes no cookie: a bearer key only.
      expect((await fetch(`${server.url}/api/v1/documents`, { headers: { cookie } })).status).to.equal(401);

      const { context, page } = await open();
      try {
        await page.goto(base);
        const answer = await fiveWrongThenRight(page, {
          field: 'API key',
          wrong: (attempt) => `dsr_wrong-${attempt}`,
          refused: 'That key is unknown',
          right: secret,
        });
        expect(answer.status()).to.equal(429);
        expect(await page.getByRole('alert').innerText()).to.match(/Too many wrong keys.*Try again in \d+ seconds/);
        expect(await context.cookies()).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('marks the session cookie Secure when the browser came over TLS (behind a trusted proxy)', async () => {
      const behind = await startTestServer({}, { prefix, trustProxy: true });
      try {
        const { secret } = await behind.dossier.keys.create({ name: 'writer', owner: OWNER, scopes: ['documents'] });
        const answer = await fetch(`${behind.url}/workspace/sign-in`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-forwarded-proto': 'https',
            origin: `https://${new URL(behind.url).host}`,
          },
          body: new URLSearchParams({ key: secret }).toString(),
          redirect: 'manual',
        });
        expect(answer.status).to.equal(303);
        expect(answer.headers.get('set-cookie')).to.match(
          new RegExp(
            `^dossier_workspace=[A-Za-z0-9_-]{43}; path=${prefix}/workspace; expires=[^;]+; samesite=strict; secure; httponly$`,
          ),
        );
      } finally {
        await behind.close();
      }
    });

    it('lists documents with search, filters, sort and pages, its state in the URL (links, reload, Back and Forward)', async () => {
      const { secret } = await writerKey();
      const notes = await seed(12);
      await seed(2, 33, (i) => `Tweet ${i}`); // Tweet
      await server.dossier.documents.update(OWNER, notes[2]!, { favorite: true, result: 'Pineapples grow slowly.' });
      const { context, page, problems } = await open();
      try {
        await signIn(page, secret);
        const headers = await page.getByRole('columnheader').allInnerTexts();
        expect(headers.map((text) => text.trim())).to.deep.equal(['Name', 'Template', 'Words', 'Favorite', 'Created', 'Updated']);
        await page.getByRole('link', { name: 'Note 12' }).waitFor();
        expect(await rowNames(page)).to.have.length(10);
        expect(await page.getByRole('status').first().innerText()).to.equal('Freestyle: 1–10 of 12 documents');
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Note 03' }) });
        expect(await row.getByRole('cell').allInnerTexts()).to.satisfy(
          (cells: string[]) => cells[0] === 'Freestyle' && cells[1] === '3',
        );
        expect(await row.getByRole('button', { name: 'Favorite: Note 03' }).getAttribute('aria-pressed')).to.equal('true');

        // Pages: Next, then Back and Forward, and a reload, show the same lists.
        await page.getByRole('link', { name: 'Next' }).click();
        await page.getByRole('link', { name: 'Note 02' }).waitFor();
        expect(page.url()).to.equal(`${base}?page=2`);
        expect(await rowNames(page)).to.deep.equal(['Note 02', 'Note 01']);
        await page.goBack();
        await page.getByRole('link', { name: 'Note 12' }).waitFor();
        expect(await rowNames(page)).to.have.length(10);
        await page.goForward();
        await page.getByRole('link', { name: 'Note 01' }).waitFor();
        await page.reload();
        await page.getByRole('link', { name: 'Note 01' }).waitFor();
        expect(await rowNames(page)).to.deep.equal(['Note 02', 'Note 01']);

        // Search by name; then by text.
        await page.goto(base);
        await page.getByLabel('Search').fill('note 1');
        await page.getByLabel('Search').press('Enter');
        await page.waitForURL(`${base}?search=note+1`);
        await rowsAre(page, ['Note 12', 'Note 11', 'Note 10']);
        await page.getByLabel('Search').fill('pineapple');
        await page.getByLabel('In', { exact: true }).selectOption({ label: 'Text' });
        await page.waitForURL(/search_by=result/);
        await rowsAre(page, ['Note 03']);
        expect(await page.getByLabel('Search').inputValue()).to.equal('pineapple');

        // Filter by template and favorite; sort by name.
        await page.goto(base);
        await page.getByLabel('Template').selectOption({ label: 'Tweet' });
        await page.waitForURL(`${base}?template_id=33`);
        await rowsAre(page, ['Tweet 2', 'Tweet 1']);
        await page.getByLabel('Sort').selectOption({ label: 'Name, A to Z' });
        await page.waitForURL(/sort_by=name&sort=asc/);
        await rowsAre(page, ['Tweet 1', 'Tweet 2']);
        await page.goto(base);
        await page.getByLabel('Show').selectOption({ label: 'Favorites' });
        await page.waitForURL(`${base}?favorite=1`);
        await rowsAre(page, ['Note 03']);
        // Two changes at once, the second made while the first's list is on its way: the second's list.
        await page.getByLabel('Show').selectOption({ label: 'All documents' });
        await page.getByLabel('Sort').selectOption({ label: 'Name, Z to A' });
        await page.waitForURL(`${base}?sort_by=name`); // descending is the default, left out
        await rowsAre(page, [
          'Note 12',
          'Note 11',
          'Note 10',
          'Note 09',
          'Note 08',
          'Note 07',
          'Note 06',
          'Note 05',
          'Note 04',
          'Note 03',
        ]);
        expect(await page.getByLabel('Show').inputValue()).to.equal('');

        // A link opened afresh shows the same list, its filters in the form.
        const link = `${base}?search=note&template_id=1&sort_by=name&sort=asc&per_page=25`;
        const second = await context.newPage();
        await second.goto(link);
        await second.getByRole('link', { name: 'Note 12' }).waitFor();
        expect(await rowNames(second)).to.have.length(12);
        expect((await rowNames(second))[0]).to.equal('Note 01');
        expect(await second.getByLabel('Per page').inputValue()).to.equal('25');
        expect(await second.getByLabel('Sort').inputValue()).to.equal('name.asc');
        await second.close();

        await page.setViewportSize(PHONE);
        await page.goto(base);
        await page.getByRole('link', { name: 'Note 12' }).waitFor();
        expect(await overflow(page)).to.be.at.most(0);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('shows the last change of the filters when the list of the change before it comes later, and keeps both in the history', async () => {
      const { secret } = await writerKey();
      const notes = await seed(6);
      for (const id of [notes[2]!, notes[4]!]) await server.dossier.documents.update(OWNER, id, { favorite: true });
      const { context, page, problems } = await open();
      try {
        await signIn(page, secret);
        await rowsAre(page, ['Note 06', 'Note 05', 'Note 04', 'Note 03', 'Note 02', 'Note 01']);
        // The next list the page asks for is held until the list after it has been answered and shown.
        const lists = `${prefix}/workspace/api/v1/documents`;
        let hold: ((request: Request) => void) | undefined;
        const held = new Promise<Request>((resolve) => (hold = resolve));
        let release = (): void => {};
        const released = new Promise<void>((resolve) => (release = resolve));
        await page.route(
          (url) => url.pathname === lists,
          async (route) => {
            if (hold !== undefined) {
              hold(route.request());
              hold = undefined;
              await released;
            }
            await route.continue();
          },
        );
        await page.getByLabel('Show').selectOption({ label: 'Favorites' });
        const first = await held;
        expect(new URL(first.url()).search).to.equal('?favorite=1');
        const [second] = await Promise.all([
          page.waitForResponse((response) => new URL(response.url()).pathname === lists),
          page.getByLabel('Sort').selectOption({ label: 'Name, A to Z' }),
        ]);
        expect(new URL(second.url()).search).to.equal('?favorite=1&sort_by=name&sort=asc');
        await rowsAre(page, ['Note 03', 'Note 05']);
        // The first list's answer is not waited for: the page ended its request, and nothing it brings is shown.
        release();
        expect(await first.response()).to.equal(null);
        expect(page.url()).to.equal(`${base}?favorite=1&sort_by=name&sort=asc`);
        expect(await page.getByLabel('Show').inputValue()).to.equal('1');
        expect(await page.getByLabel('Sort').inputValue()).to.equal('name.asc');
        expect(await rowNames(page)).to.deep.equal(['Note 03', 'Note 05']);
        await page.unroute((url) => url.pathname === lists);

        // Each change is an entry of the history: Back and Forward show each one's form and list.
        await page.goBack();
        expect(page.url()).to.equal(`${base}?favorite=1`);
        await rowsAre(page, ['Note 05', 'Note 03']);
        expect(await page.getByLabel('Sort').inputValue()).to.equal('id.desc');
        await page.goBack();
        expect(page.url()).to.equal(base);
        await rowsAre(page, ['Note 06', 'Note 05', 'Note 04', 'Note 03', 'Note 02', 'Note 01']);
        expect(await page.getByLabel('Show').inputValue()).to.equal('');
        await page.goForward();
        await page.goForward();
        expect(page.url()).to.equal(`${base}?favorite=1&sort_by=name&sort=asc`);
        await rowsAre(page, ['Note 03', 'Note 05']);
        expect(await page.getByLabel('Sort').inputValue()).to.equal('name.asc');
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('writes a new document from a template, the text appearing as it streams; a Stop stores nothing; errors sit beside their fields', async () => {
      const { secret } = await writerKey();
      const { context, page, problems } = await open();
      try {
        await signIn(page, secret);
        await page.getByRole('link', { name: 'New document' }).first().click();
        await page.getByRole('radio', { name: 'Freestyle' }).waitFor();
        expect(await page.getByRole('radio').count()).to.equal(72);
        const groups = await page.locator('.templates h3').allInnerTexts();
        expect(groups).to.deep.equal([
          'WRITING',
          'BLOG',
          'MARKETING AND ADS',
          'SOCIAL AND VIDEO',
          'WEBSITE AND SEO',
          'COMPANY',
          'YOUR TEMPLATES',
        ]);
        expect(await page.getByRole('radio', { name: 'Freestyle' }).isChecked()).to.equal(true);

        // Errors beside their fields, and nothing stored.
        await page.getByRole('button', { name: 'Generate' }).click();
        await page.locator('#name-error').getByText('The name field is required.').waitFor();
        expect(await page.locator('#prompt-error').innerText()).to.include('The prompt field is required.');
        expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
        expect(await page.evaluate(() => document.activeElement?.id)).to.equal('name');
        expect(await stored()).to.equal(0);

        // Stop: the stream ends, the generation is abandoned upstream, and nothing is stored.
        openai.behaviour = { kind: 'stream', pieces: PIECES, delayMs: 5, hold: 3 };
        await page.getByLabel('Name', { exact: true }).fill('Never kept');
        await page.getByLabel('What should it say?').fill('Stop me.');
        await page.getByRole('button', { name: 'Generate' }).click();
        await page.locator('[data-result]').getByText('Spring is here:').waitFor();
        await page.getByRole('button', { name: 'Stop' }).click();
        await page.getByText('Stopped. Nothing was saved.').waitFor();
        await until(() => openai.abandoned === 1, 'the generation was abandoned');
        expect(await stored()).to.equal(0);
        expect(await page.getByRole('button', { name: 'Generate' }).isEnabled()).to.equal(true);
        expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).to.equal(false);

        // Find a template by name.
        await page.getByLabel('Find a template').fill('tw');
        expect(await page.getByRole('radio').filter({ visible: true }).count()).to.equal(2);
        expect(await page.getByText('2 of 72 templates').count()).to.equal(1);
        await page.getByRole('radio', { name: 'Tweet', exact: true }).check();
        await page.getByLabel('Name', { exact: true }).fill('Garden launch');
        await page.getByLabel('What should it say?').fill('Announce the spring garden range.');
        await page.getByLabel('Creativity').selectOption('0.75');

        // The text shows while it is written (the generator holds after four pieces), then the document opens.
        openai.behaviour = { kind: 'stream', pieces: PIECES, delayMs: 5, hold: 4 };
        await page.getByRole('button', { name: 'Generate' }).click();
        await page.locator('[data-result]').getByText('Spring is here: our').waitFor();
        expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).to.equal(true);
        expect(await stored(33)).to.equal(0);
        // Released, the stopped generation's upstream would go on too: still only this document is stored.
        openai.release();
        await page.waitForURL(/\/workspace\/documents\/\d+$/);
        await page.getByRole('heading', { name: 'Garden launch' }).waitFor();
        const [doc] = (await server.dossier.documents.list(OWNER, { templateId: 33 })).data;
        expect(doc).to.include({ name: 'Garden launch', result: PIECES.join(''), creativity: 0.75 });
        expect(await page.getByLabel('Text').inputValue()).to.equal(PIECES.join(''));
        expect([await stored(1), await stored(33)]).to.deep.equal([0, 1]);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('reads, renames, edits (live word count), favorites, copies, downloads (.md .txt .html .docx) and deletes a document', async () => {
      const { secret } = await writerKey();
      const [id] = await seed(1, 1, () => 'Quarterly letter');
      await server.dossier.documents.update(OWNER, id!, { result: 'Dear readers,\n\nIt was a good quarter.' });
      const { context, page, problems } = await open();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.url).origin });
      try {
        await signIn(page, secret, `/documents/${id}`);
        await page.getByRole('heading', { name: 'Quarterly letter' }).waitFor();
        expect(await page.locator('[data-words]').innerText()).to.equal('7 words');

        // Edit: the count follows the text as it is typed, CJK characters counting 0.75.
        const text = page.getByLabel('Text');
        await text.fill('Dear readers,\n\nIt was a very good quarter.\n\n春が来た');
        expect(await page.locator('[data-words]').innerText()).to.equal('11 words');
        await page.getByLabel('Name', { exact: true }).fill('Quarterly letter, Q2');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        await page.getByRole('heading', { name: 'Quarterly letter, Q2' }).waitFor();
        const saved = await server.dossier.documents.get(OWNER, id!);
        expect(saved).to.include({
          name: 'Quarterly letter, Q2',
          result: 'Dear readers,\n\nIt was a very good quarter.\n\n春が来た',
          words: 11,
        });
        // A bad name is refused beside its field.
        await page.getByLabel('Name', { exact: true }).fill('');
        await page.getByRole('button', { name: 'Save' }).click();
        await page
          .locator('#doc-name-error')
          .getByText(/^The name field/)
          .waitFor();
        expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
        await page.getByLabel('Name', { exact: true }).fill('Quarterly letter, Q2');

        // Favorite, and back.
        const favorite = page.getByRole('button', { name: /Favorite/ });
        await favorite.click();
        await page.locator('[data-favorite][aria-pressed="true"]').waitFor();
        expect((await server.dossier.documents.get(OWNER, id!)).favorite).to.equal(true);

        await page.getByRole('button', { name: 'Copy text' }).click();
        await page.getByText('Copied the text to the clipboard.').waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(saved.result);

        const downloaded = async (name: string): Promise<{ file: string; content: Buffer }> => {
          const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
          return { file: download.suggestedFilename(), content: readFileSync(await download.path()) };
        };
        const md = await downloaded('Markdown (.md)');
        expect(md.file).to.equal('Quarterly-letter-Q2.md');
        expect(md.content.toString()).to.equal(`# Quarterly letter, Q2\n\n${saved.result}\n`);
        const txt = await downloaded('Plain text (.txt)');
        expect(txt.file).to.equal('Quarterly-letter-Q2.txt');
        expect(txt.content.toString()).to.equal(`Quarterly letter, Q2\n\n${saved.result}\n`);
        const html = await downloaded('Web page (.html)');
        expect(html.content.toString())
          .to.include('<title>Quarterly letter, Q2</title>')
          .and.include('<p>It was a very good quarter.</p>');
        const word = await downloaded('Word (.docx)');
        expect(word.file).to.equal('Quarterly-letter-Q2.docx');
        const files = unzip(word.content);
        expect([...files.keys()]).to.include.members(['[Content_Types].xml', 'word/document.xml']);
        const xml = files.get('word/document.xml')!.toString('utf8');
        const texts = [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]);
        expect(texts).to.deep.equal(['Quarterly letter, Q2', 'Dear readers,', 'It was a very good quarter.', '春が来た']);

        // Delete asks first: Cancel keeps it, Delete removes it and goes back to the list.
        await page.getByRole('button', { name: 'Delete document' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete this document?' });
        expect(await dialog.innerText()).to.include('“Quarterly letter, Q2” will be deleted for good.');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        expect(await stored()).to.equal(1);
        await page.getByRole('button', { name: 'Delete document' }).click();
        await dialog.getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(base);
        await page.getByText('No Freestyle documents yet.').waitFor();
        expect(await stored()).to.equal(0);

        await page.goto(`${base}/documents/${id}`);
        expect(await page.getByRole('alert').innerText()).to.include('There is no such document');
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('offers no Word download where docx is not installed, and works otherwise', async () => {
      // docx is installed here. Where it is not, the server finds no browser build (findDocx, as for a
      // resolution from a folder without the package; test/unit/http/workspace-docx.test.ts) and makes the
      // document's page with that answer: that page, by the server's own renderer, in the server's own
      // response (headers, CSP), is what the browser gets. Everything else comes from the server as is.
      const empty = mkdtempSync(join(tmpdir(), 'dossier-no-docx-'));
      const docx = findDocx((name) => require.resolve(name, { paths: [empty] }));
      rmSync(empty, { recursive: true, force: true });
      expect(docx).to.equal(null);
      const { secret } = await writerKey();
      const [id] = await seed(1, 1, () => 'Plain letter');
      const { context, page, problems } = await open();
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      // Not a single error in the console either (a failed load of docx.js would show there).
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      try {
        await signIn(page, secret);
        await page.route(`${base}/documents/${id}`, async (route) => {
          const response = await route.fetch();
          const headers = { ...response.headers() };
          delete headers['content-length'];
          delete headers['content-encoding'];
          const body = viewPage({ base: `${prefix}/workspace`, docx: docx !== null }, { name: 'document', id: String(id) });
          await route.fulfill({ response, headers, body });
        });
        await page.goto(`${base}/documents/${id}`);
        await page.getByRole('heading', { name: 'Plain letter' }).waitFor();
        // No Word button at all (not one that would fail), the other downloads there and working.
        expect(await page.getByRole('button', { name: /Word|docx/i }).count()).to.equal(0);
        expect(await page.locator('[data-download="docx"]').count()).to.equal(0);
        for (const name of ['Markdown (.md)', 'Plain text (.txt)', 'Web page (.html)'])
          expect(await page.getByRole('button', { name }).isVisible(), name).to.equal(true);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Markdown (.md)' }).click(),
        ]);
        expect(download.suggestedFilename()).to.equal('Plain-letter.md');
        expect(readFileSync(await download.path()).toString()).to.equal('# Plain letter\n\nA short text for the list.\n');
        // Editing and saving work as ever.
        await page.getByLabel('Text').fill('Dear readers, it was a good quarter.');
        expect(await page.locator('[data-words]').innerText()).to.equal('7 words');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Saved.').waitFor();
        expect((await server.dossier.documents.get(OWNER, id!)).result).to.equal('Dear readers, it was a good quarter.');
        expect(asked.filter((path) => path.endsWith('/docx.js'))).to.deep.equal([]);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    /** Presses Tab: the name of what takes the focus (null: nothing on the page), checked for a visible focus ring. */
    async function tab(page: Page): Promise<string | null> {
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (element === null || element === document.body) return null;
        const style = getComputedStyle(element);
        const label = (element as HTMLInputElement).labels?.[0]?.textContent;
        const name = element.getAttribute('aria-label') ?? label ?? element.textContent ?? '';
        return { name: name.trim(), ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
      });
      if (focus === null) return null;
      expect(focus.ring, `a visible focus on ${focus.name}`).to.equal(true);
      return focus.name;
    }

    /** Tabs through the page: the names of what takes the focus, each checked for a visible focus ring. */
    async function tabStops(page: Page, stops: number): Promise<string[]> {
      const names: string[] = [];
      for (let i = 0; i < stops; i++) {
        const name = await tab(page);
        if (name !== null) names.push(name);
      }
      return names;
    }

    /** Tabs (each stop checked for a visible focus ring) until what is named `name` has the focus. */
    async function tabTo(page: Page, name: string): Promise<void> {
      for (let i = 0; i < 60; i++) if ((await tab(page)) === name) return;
      expect.fail(`Tab never reached ${name}`);
    }

    it('works from the keyboard alone, with a visible focus on every action', async () => {
      const { secret } = await writerKey();
      // Ten older documents first: the list has two pages, the newest (Keyboard note) at the top of the first.
      await seed(10);
      const [id] = await seed(1, 1, () => 'Keyboard note');
      const { context, page, problems } = await open();
      try {
        await page.goto(base);
        await page.getByLabel('API key').waitFor();
        // The key's field has the focus from the start.
        expect(await page.evaluate(() => document.activeElement?.id)).to.equal('key');
        await page.keyboard.type(secret);
        await page.keyboard.press('Enter');
        await page.getByRole('link', { name: 'Keyboard note' }).waitFor();

        expect(await tabStops(page, 20)).to.include.members([
          'Skip to content',
          'Documents',
          'New document',
          'Sign out',
          'Search',
          'In',
          'Template',
          'Show',
          'Sort',
          'Per page',
          'Apply',
          'Keyboard note',
          'Favorite: Keyboard note',
        ]);
        // The pages: Next from the first (whose Previous is off, out of the Tab order), Previous from the second.
        await tabTo(page, 'Next');
        await page.keyboard.press('Enter');
        await page.waitForURL(`${base}?page=2`);
        await page.getByRole('link', { name: 'Note 01' }).waitFor();
        expect(await rowNames(page)).to.deep.equal(['Note 01']);
        await tabTo(page, 'Previous');
        await page.keyboard.press('Enter');
        await page.waitForURL(base);
        await page.getByRole('link', { name: 'Keyboard note' }).waitFor();
        expect(await rowNames(page)).to.have.length(10);

        await page.goto(`${base}/new`);
        await page.getByRole('radio', { name: 'Freestyle' }).waitFor();
        expect(await tabStops(page, 12)).to.include.members([
          'Find a template',
          'Freestyle',
          'Name',
          'What should it say?',
          'Creativity',
          'Generate',
        ]);

        await page.goto(`${base}/documents/${id}`);
        await page.getByRole('heading', { name: 'Keyboard note' }).waitFor();
        expect(await tabStops(page, 20)).to.include.members([
          '← Documents',
          '☆ Favorite',
          'Name',
          'Text',
          'Save',
          'Copy text',
          'Markdown (.md)',
          'Plain text (.txt)',
          'Web page (.html)',
          'Word (.docx)',
          'How it was written',
          'Delete document',
        ]);
        // Act with the keyboard: favorite, then delete through the dialog.
        await page.getByRole('button', { name: '☆ Favorite' }).focus();
        await page.keyboard.press('Enter');
        await page.locator('[data-favorite][aria-pressed="true"]').waitFor();
        await page.getByRole('button', { name: 'Delete document' }).focus();
        await page.keyboard.press('Enter');
        expect(await page.evaluate(() => document.activeElement?.textContent)).to.equal('Cancel');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Enter');
        await page.waitForURL(base);
        expect(await stored()).to.equal(10);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('has no serious axe-core violation on any view, light and dark, and fits 360 px', async () => {
      const { secret } = await writerKey();
      const [id] = await seed(3);
      await server.dossier.documents.update(OWNER, id!, { favorite: true });
      for (const colorScheme of ['light', 'dark'] as const) {
        const { context, page, problems } = await open();
        try {
          await page.emulateMedia({ colorScheme });
          await page.goto(base);
          await page.getByLabel('API key').waitFor();
          const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
          expect(background).to.equal(colorScheme === 'dark' ? 'rgb(17, 21, 19)' : 'rgb(244, 245, 242)');
          const views: [string, string, () => Promise<unknown>][] = [
            ['sign-in', '', () => page.getByLabel('API key').waitFor()],
            ['list', '', () => page.getByRole('link', { name: 'Note 03' }).waitFor()],
            ['new', '/new', () => page.getByRole('radio', { name: 'Freestyle' }).waitFor()],
            ['document', `/documents/${id}`, () => page.getByLabel('Text').waitFor()],
          ];
          for (const [view, path, ready] of views) {
            if (view === 'list') await signIn(page, secret);
            else await page.goto(`${base}${path}`);
            await ready();
            expect(await seriousViolations(page), `${view} (${colorScheme})`).to.deep.equal([]);
            await page.setViewportSize(PHONE);
            expect(await overflow(page), `${view} at 360 px`).to.be.at.most(0);
            await page.setViewportSize(LAPTOP);
          }
          expect(problems).to.deep.equal([]);
        } finally {
          await context.close();
        }
      }
    });
  });
});
