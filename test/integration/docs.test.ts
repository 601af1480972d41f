import { expect } from 'chai';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumOrSkip } from '../support/chromium.js';
import { startTestServer, type TestServer, eachAdapter } from '../support/harness.js';

/** Every `src` and `href` of an HTML page. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((match) => match[1]!);
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:)?\/\//i;

eachAdapter(() => {
  describe('/docs, the reference page', () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server.close();
    });

    it('is HTML under a strict Content-Security-Policy, and every asset it names is served here', async () => {
      const response = await server.get('/docs');
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'none'");
      expect(csp).to.include("script-src 'self'");
      expect(csp).to.not.match(/script-src[^;]*'unsafe-(?:inline|eval)'/);
      expect(csp).to.not.match(/https?:|\*/);
      const html = await response.text();
      expect(html).to.not.match(/<script>[^<]/); // no inline script
      const assets = references(html);
      expect(assets.length).to.be.at.least(3);
      for (const asset of assets) {
        expect(asset, 'an external reference').to.not.match(EXTERNAL);
        const url = new URL(asset, `${server.url}/docs`);
        expect(url.origin).to.equal(server.url);
        const fetched = await server.get(url.pathname);
        expect(fetched.status, url.pathname).to.equal(200);
        const text = await fetched.text();
        if (url.pathname.endsWith('.css')) {
          for (const [, target] of text.matchAll(/url\(\s*["']?([^"')]*)/g))
            expect(target, `${url.pathname} url()`).to.not.match(EXTERNAL);
          expect(text).to.not.match(/@import\s+(?:url\()?["']?(?:https?:)?\/\//);
        }
        if (url.pathname.endsWith('init.js')) {
          expect(text).to.not.match(/https?:\/\//);
          expect(text).to.include('validatorUrl: null');
        }
      }
    });

    it('sends /docs/ to /docs, where its relative links point', async () => {
      const response = await server.get('/docs/');
      expect(response.status).to.equal(302);
      expect(response.headers.get('location')).to.equal('/docs');
    });

    it('serves only its own assets: an unknown one is a JSON 404, not a file of the package', async () => {
      for (const path of ['/docs/package.json', '/docs/index.html', '/docs/..%2F..%2Fpackage.json']) {
        const response = await server.get(path);
        expect(response.status, path).to.equal(404);
      }
    });

    describe('in Chromium', function () {
      let browser: Browser | undefined;

      before(async function () {
        browser = await chromiumOrSkip(this);
      });
      after(async () => {
        await browser?.close();
      });

      it('renders the routes from /openapi.json, fetching nothing from outside and breaking no CSP rule', async () => {
        const page = await browser!.newPage({ viewport: { width: 1280, height: 1600 } });
        const requested: string[] = [];
        const problems: string[] = [];
        page.on('request', (request) => requested.push(request.url()));
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));
        await page.goto(`${server.url}/docs`);
        await page.waitForSelector('.opblock-summary-path', { timeout: 15000 });
        const paths = await page.locator('.opblock-summary-path').allTextContents();
        const shown = paths.map((path) => path.replace(/\u200b/g, '').trim());
        expect(shown).to.include.members(['/api/dns', '/api/v1/documents/{id}', '/admin/api/keys', '/healthz', '/api/batch']);
        expect(await page.title()).to.equal('Dossier API reference');
        const shots = process.env.DOSSIER_SCREENSHOT_DIR;
        if (shots !== undefined) await page.screenshot({ path: join(shots, 'docs.png') });
        for (const url of requested) {
          if (url.startsWith('data:')) continue;
          expect(new URL(url).origin, url).to.equal(server.url);
        }
        expect(requested.some((url) => url.endsWith('/openapi.json'))).to.equal(true);
        expect(problems, problems.join('\n')).to.deep.equal([]);
        await page.close();
      });
    });
  });
});
