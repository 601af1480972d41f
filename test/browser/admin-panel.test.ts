import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fiveWrongThenRight, suiteChromium, watchedPage, type WatchedPage } from '../support/browser.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { eachAdapter, startTestServer, type TestServer } from '../support/harness.js';
import { startReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'browser-admin-token-0123456789abcdefghij';
const HEADERS = ['Name', 'Owner', 'Scopes', 'Daily limit', 'Used today', 'Created', 'Status'];
const LAPTOP = { width: 1366, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * The whole story of the panel in a real browser, driven by accessible names as docs/contract.md §5 fixes
 * them, through every adapter (one Chromium for all). Screenshots at laptop and phone widths go to
 * `DOSSIER_SCREENSHOT_DIR` when it is set (they are for people to look at, and cost the run seconds of
 * Chromium's time otherwise).
 */
describe('the admin panel in Chromium', function () {
  this.timeout(60_000);
  const chromium = suiteChromium();
  let dns: TestDnsServer;
  let server: TestServer;
  const shots = process.env.DOSSIER_SCREENSHOT_DIR;

  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
    if (shots !== undefined) mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await dns?.close();
  });

  eachAdapter(() => {
    beforeEach(async () => {
      server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address] });
    });
    afterEach(() => server?.close());

    /** A fresh browser context (no cookie) whose page fails the test on a CSP violation, a script error or a request elsewhere. */
    const open = (viewport = LAPTOP): Promise<WatchedPage> =>
      watchedPage(chromium.browser, { viewport, origin: new URL(server.url).origin });

    async function signIn(page: Page): Promise<void> {
      await page.goto(`${server.url}/admin`);
      await page.getByLabel('Admin token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Create key' }).waitFor();
    }

    /** The text of one column of the keys table's row for `name`. */
    async function cell(page: Page, name: string, header: string): Promise<string> {
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
      return (await row.getByRole('cell').nth(HEADERS.indexOf(header)).innerText()).trim();
    }

    /** How far the page, or any table inside its scrolling frame, is wider than the screen (≤ 0: not at all). */
    const overflow = (page: Page): Promise<number> =>
      page.evaluate(() =>
        Math.max(
          document.documentElement.scrollWidth - window.innerWidth,
          ...[...document.querySelectorAll('.table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth),
        ),
      );

    /** The words inside `selector` that the layout splits over two lines. */
    const wordsSplitAcrossLines = (page: Page, selector: string): Promise<string[]> =>
      page.evaluate((within) => {
        const split: string[] = [];
        for (const element of document.querySelectorAll(within)) {
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
            for (const match of (node.textContent ?? '').matchAll(/\S+/g)) {
              const range = document.createRange();
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
              if (tops.size > 1) split.push(match[0]);
            }
          }
        }
        return split;
      }, selector);

    const lookup = (secret: string): Promise<Response> => server.get('/api/dns?domain=example.test', secret);

    it('signs in only with the right token, saying so on the page when it is wrong', async () => {
      const { context, page, problems } = await open();
      try {
        await page.goto(`${server.url}/admin`);
        await page.getByLabel('Admin token').fill('not-the-token');
        await page.getByRole('button', { name: 'Sign in' }).click();
        expect(await page.getByRole('alert').innerText()).to.include('That admin token is wrong.');
        expect(await page.getByRole('table').count()).to.equal(0);

        await page.getByLabel('Admin token').fill(TOKEN);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const headers = await page.getByRole('table').getByRole('columnheader').allInnerTexts();
        expect(headers.map((text) => text.trim())).to.deep.equal(HEADERS);
        const cookies = await context.cookies();
        expect(cookies).to.have.length(1);
        expect(cookies[0]).to.include({ name: 'dossier_admin', httpOnly: true, sameSite: 'Strict', secure: false });

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Admin token').waitFor();
        expect(await context.cookies()).to.have.length(0);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('creates a key shown once, sees its use, changes its limit, rolls it and revokes it', async () => {
      const { context, page, problems } = await open();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      try {
        await signIn(page);
        expect(await page.getByRole('checkbox', { name: 'lookup' }).isChecked()).to.equal(true);
        expect(await page.getByRole('checkbox', { name: 'documents' }).isChecked()).to.equal(true);

        // A bad value is refused on the page, and nothing is created.
        await page.getByLabel('Name', { exact: true }).fill('ci-pipeline');
        await page.getByLabel('Daily limit').fill('-1');
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByText('The daily limit must be a whole number').waitFor();
        expect(await server.dossier.keys.list()).to.have.length(0);

        await page.getByLabel('Daily limit').fill('5');
        await page.getByLabel('Owner').fill('acct-ci');
        await page.getByRole('button', { name: 'Create key' }).click();
        const shown = page.getByTestId('new-key');
        await shown.waitFor();
        const secret = (await shown.innerText()).trim();
        expect(secret).to.match(/^dsr_[A-Za-z0-9_-]{43}$/);
        await page.getByRole('button', { name: 'Copy' }).click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(secret);
        expect(await cell(page, 'ci-pipeline', 'Owner')).to.equal('acct-ci');
        expect(await cell(page, 'ci-pipeline', 'Daily limit')).to.equal('5');
        expect(await cell(page, 'ci-pipeline', 'Used today')).to.equal('0');
        expect(await cell(page, 'ci-pipeline', 'Status')).to.equal('active');

        // A second key: one scope, an expiry; it lists above the first.
        await page.getByLabel('Name', { exact: true }).fill('partner-portal');
        await page.getByRole('checkbox', { name: 'documents' }).uncheck();
        await page.getByLabel('Expires').fill('2099-06-30');
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByRole('link', { name: 'partner-portal' }).waitFor();
        expect(await cell(page, 'partner-portal', 'Scopes')).to.equal('lookup');
        expect(await page.getByRole('row').filter({ hasText: 'partner-portal' }).innerText()).to.include('expires 2099-06-30');
        const names = await page.locator('#keys tbody a.key-name').allInnerTexts();
        expect(names).to.deep.equal(['partner-portal', 'ci-pipeline']);

        // Use it: "Used today" moves; a reload never shows a plaintext key again.
        expect((await lookup(secret)).status).to.equal(200);
        expect((await lookup(secret)).status).to.equal(200);
        await page.reload();
        expect(await cell(page, 'ci-pipeline', 'Used today')).to.equal('2');
        expect(await page.getByTestId('new-key').count()).to.equal(0);
        expect(await page.getByRole('button', { name: 'Copy' }).count()).to.equal(0);
        expect(await page.content()).to.not.include(secret);
        expect(await overflow(page)).to.be.at.most(0);
        await screenshots(page, 'keys');

        // The detail view: the chart states the total; the table has the same figures by kind.
        await page.getByRole('link', { name: 'ci-pipeline' }).click();
        const chart = page.getByRole('img', { name: /total/ });
        expect(await chart.getAttribute('aria-label')).to.match(
          /^2 lookups in total from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/,
        );
        expect(await chart.evaluate((element) => element.tagName.toLowerCase())).to.equal('svg');
        const today = new Date().toISOString().slice(0, 10);
        const dayRow = page.getByRole('row', { name: new RegExp(`^${today}`) });
        expect((await dayRow.getByRole('cell').allInnerTexts()).map((text) => text.trim())).to.deep.equal([
          '2',
          '0',
          '0',
          '0',
          '2',
        ]);
        expect(await page.getByRole('table').first().getByRole('row').count()).to.equal(32); // header, 30 days, total
        await screenshots(page, 'detail');

        // Change the limit: the next lookup answers under the new one.
        await page.getByLabel('Daily limit').fill('10');
        await page.getByRole('button', { name: 'Save limit' }).click();
        await page.locator('.facts div').filter({ hasText: 'Daily limit' }).locator('dd', { hasText: /^10$/ }).waitFor();
        expect((await lookup(secret)).headers.get('X-RateLimit-Limit')).to.equal('10');

        // Roll: asked first; the new secret shows once; the old one is refused at once (no grace).
        await page.getByRole('button', { name: 'Roll key' }).click();
        await page.getByRole('button', { name: 'Cancel' }).click();
        expect(await page.getByTestId('new-key').count()).to.equal(0);
        await page.getByRole('button', { name: 'Roll key' }).click();
        await page.getByRole('button', { name: 'Confirm' }).click();
        await page.getByTestId('new-key').getByText(/^dsr_/).waitFor();
        const rolled = (await page.getByTestId('new-key').innerText()).trim();
        expect(rolled).to.not.equal(secret);
        expect((await lookup(secret)).status).to.equal(401);
        expect((await lookup(rolled)).status).to.equal(200);

        // Revoke from the table: asked first, then the row shows revoked and the key is refused.
        await page.getByRole('link', { name: '← All keys' }).click();
        const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'ci-pipeline', exact: true }) });
        await row.getByRole('button', { name: 'Revoke' }).click();
        await page.getByRole('button', { name: 'Confirm' }).click();
        await row.getByText('revoked').waitFor();
        expect(await cell(page, 'ci-pipeline', 'Status')).to.equal('revoked');
        expect(await row.getByRole('button', { name: 'Revoke' }).count()).to.equal(0);
        const refused = await lookup(rolled);
        expect(refused.status).to.equal(401);
        expect(await refused.json()).to.include({ code: 'invalid_key' });
        expect(await cell(page, 'partner-portal', 'Status')).to.equal('active');
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it("lists the key's watches on its detail, with their last check and last deliveries", async () => {
      await server.close();
      const receiver = await startReceiver();
      dns.zone['hooks.test'] = { A: [{ address: '127.0.0.1', ttl: 60 }] };
      // The SSL watch's peer refuses: its checks fail, and the panel says why.
      server = await startTestServer({ adminToken: TOKEN, dnsServers: [dns.address], allowPrivateTargets: true, sslPort: 1 });
      const { key } = await server.dossier.keys.create({ name: 'monitoring', owner: 'acct-watch' });
      const watches = server.dossier.watches;
      const mine = { keyId: key.id, owner: key.owner, webhookUrl: `http://hooks.test:${receiver.port}/hooks` };
      const zone = await watches.create({ type: 'dns', domain: 'example.test', ...mine });
      const certificate = await watches.create({ type: 'ssl', domain: 'hooks.test', intervalSeconds: 300, ...mine });
      const who = { owner: key.owner };
      const settled = async (id: string, done: (deliveries: { status: string }[]) => boolean): Promise<void> => {
        while ((await watches.get(id, who)).lastCheckedAt === null || !done(await watches.deliveries(id, who))) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await settled(zone.watch.id, () => true);
      await settled(certificate.watch.id, () => true);
      dns.zone['example.test']!.A = [{ address: '93.184.216.35', ttl: 600 }];
      await watches.check(zone.watch.id, who);
      await settled(zone.watch.id, (deliveries) => deliveries[0]?.status === 'delivered');
      const { context, page, problems } = await open();
      try {
        await signIn(page);
        await page.getByRole('link', { name: 'monitoring' }).click();
        const table = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Last deliveries' }) });
        await table.waitFor();
        const rows = table.getByRole('row');
        expect(await rows.count()).to.equal(3);
        const first = await rows.nth(1).innerText();
        expect(first).to.match(/ssl hooks\.test/);
        expect(first).to.include('every 5 min');
        expect(first).to.match(/failed[\s\S]*refused/);
        const second = await rows.nth(2).innerText();
        expect(second).to.match(/dns example\.test/);
        expect(second).to.match(/dns\.changed\s+delivered/);
        expect(second).to.include('1 attempt · HTTP 204');
        expect(problems).to.deep.equal([]);
        await screenshots(page, 'detail-watches');
        await page.setViewportSize(PHONE);
        expect(await overflow(page)).to.be.at.most(0);
        await page.setViewportSize(LAPTOP);

        // Remove asks first (Cancel keeps the watch), then removes it, for good.
        const sslRow = rows.filter({ hasText: 'ssl hooks.test' });
        await sslRow.getByRole('button', { name: 'Remove' }).click();
        expect(await page.getByRole('dialog').innerText()).to.include('Remove the watch "ssl hooks.test"?');
        await page.getByRole('button', { name: 'Cancel' }).click();
        expect(await rows.count()).to.equal(3);
        await sslRow.getByRole('button', { name: 'Remove' }).click();
        await page.getByRole('button', { name: 'Confirm' }).click();
        await sslRow.waitFor({ state: 'detached' });
        expect(await rows.count()).to.equal(2);
        expect(await page.getByRole('heading', { name: /^Watches/ }).innerText()).to.match(/Watches\s+1$/);
        const removed = await watches.get(certificate.watch.id, who).catch((error: unknown) => error);
        expect(removed).to.have.property('code', 'ERR_WATCH_NOT_FOUND');

        // The revoke says what goes with the key.
        await page.getByRole('button', { name: 'Revoke' }).click();
        expect(await page.getByRole('dialog').innerText()).to.include('its watch is removed with it.');
        await screenshots(page, 'revoke-watches');
        await page.getByRole('button', { name: 'Confirm' }).click();
        await page.getByTestId('status').getByText('revoked').waitFor();
        expect(await watches.ofKey(key.id)).to.deep.equal([]);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
        dns.zone['example.test']!.A = [{ address: '93.184.216.34', ttl: 600 }];
        await receiver.close();
      }
    });

    it('shows the keys a page at a time, searched and filtered, its state in the URL', async () => {
      for (let n = 0; n < 54; n += 1) await server.key({ name: `alpha-${String(n).padStart(2, '0')}`, owner: 'acct-a' });
      await server.key({ name: 'beta-special', owner: 'acct-b' });
      const { context, page, problems } = await open();
      try {
        await signIn(page);
        const names = async (): Promise<string[]> => page.locator('#keys tbody a.key-name').allInnerTexts();
        const first = await names();
        expect(first).to.have.length(50);
        expect(await page.locator('.heading p').innerText()).to.include('55 keys');
        await page.getByRole('link', { name: 'Next' }).click();
        await page.waitForURL(/cursor=/);
        const second = await names();
        expect(second).to.have.length(5);
        expect([...first, ...second].sort(), 'each key on one page')
          .to.have.length(55)
          .and.include('beta-special');
        expect(new Set([...first, ...second]).size).to.equal(55);
        expect(await page.getByRole('link', { name: 'Next' }).count()).to.equal(0);
        await page.getByRole('link', { name: 'Previous' }).click();
        await page.waitForURL(/before=/);
        expect(await names()).to.deep.equal(first);

        await page.getByLabel('Search').fill('BETA');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/search=BETA/);
        expect(await names()).to.deep.equal(['beta-special']);
        await page.reload();
        expect(await names(), 'the state is in the URL').to.deep.equal(['beta-special']);
        await page.getByLabel('Search').fill('');
        await page.getByLabel('Status').selectOption('revoked');
        await page.getByRole('button', { name: 'Search' }).click();
        await page.waitForURL(/status=revoked/);
        expect(await page.locator('#keys tbody').innerText()).to.include('No key matches.');
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('reads well on a phone: nothing wider than the screen', async () => {
      await server.dossier.keys.create({ name: 'a-rather-long-key-name-for-a-phone', owner: 'acct-with-a-long-owner-name' });
      const { context, page, problems } = await open(PHONE);
      try {
        await signIn(page);
        expect(await overflow(page)).to.be.at.most(0);
        await screenshots(page, 'phone-keys', false);
        await page.getByRole('link', { name: 'a-rather-long-key-name-for-a-phone' }).click();
        await page.getByRole('img', { name: /total/ }).waitFor();
        expect(await overflow(page)).to.be.at.most(0);
        // Lines break between words: "documents" must not read "document" / "s", nor an id lose its last digit.
        expect(await wordsSplitAcrossLines(page, '.facts dd')).to.deep.equal([]);
        await screenshots(page, 'phone-detail', false);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    it('locks sign-in for the address after five wrong tokens', async () => {
      const { context, page } = await open();
      try {
        await page.goto(`${server.url}/admin`);
        const answer = await fiveWrongThenRight(page, {
          field: 'Admin token',
          wrong: (attempt) => `wrong-token-${attempt}`,
          refused: 'That admin token is wrong.',
          right: TOKEN,
        });
        expect(answer.status()).to.equal(429);
        expect(await page.getByRole('alert').innerText()).to.match(/Too many wrong tokens.*Try again in \d+ seconds/);
        expect(await context.cookies()).to.have.length(0);
      } finally {
        await context.close();
      }
    });

    it('opens /docs when the server has it', async function () {
      const response = await server.get('/docs');
      if (response.status === 404) {
        console.log('    (skipped: this build serves no /docs)');
        this.skip();
      }
      const { context, page, problems } = await open();
      try {
        const answer = await page.goto(`${server.url}/docs`);
        expect(answer?.status()).to.equal(200);
        expect((await page.title()).trim()).to.not.equal('');
        expect(await page.getByRole('heading').count()).to.be.greaterThan(0);
        expect(problems).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });

    /** The page at laptop width (full length) and, when asked, at phone width too, into DOSSIER_SCREENSHOT_DIR. */
    async function screenshots(page: Page, name: string, both = true): Promise<void> {
      if (shots === undefined) return;
      await page.screenshot({ path: join(shots, `admin-${name}.png`), fullPage: true });
      if (!both) return;
      const size = page.viewportSize() ?? LAPTOP;
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: join(shots, `admin-${name}-phone.png`), fullPage: true });
      await page.setViewportSize(size);
    }
  });
});
