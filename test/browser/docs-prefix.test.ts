import { expect } from 'chai';
import { serverAndPage, suiteChromium } from '../support/browser.js';
import { eachAdapter, startTestServer } from '../support/harness.js';

const PREFIX = '/tools/dossier';

/**
 * Mounted under a prefix, the reference page (/docs) calls the API inside it: /openapi.json's `servers`
 * names the prefix, and Swagger UI's "Try it out" sends its request there, through every adapter.
 */
describe('the reference page under a prefix, in Chromium', function () {
  this.timeout(120_000);
  const chromium = suiteChromium();

  eachAdapter(() => {
    const each = serverAndPage(chromium, () => startTestServer({}, { prefix: PREFIX }), { width: 1366, height: 800 });

    it("names the prefix in /openapi.json's servers", async () => {
      const document = (await (await each.server.get('/openapi.json')).json()) as { servers?: { url: string }[] };
      expect(document.servers?.map((entry) => entry.url)).to.deep.equal([PREFIX]);
    });

    it('sends "Try it out" to the API inside the prefix', async () => {
      const { server, page } = each;
      const calls: string[] = [];
      page.on('request', (request) => calls.push(new URL(request.url()).pathname));
      await page.goto(`${server.url}/docs`);
      const operation = page.locator('.opblock', { has: page.locator('[data-path="/healthz"]') });
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/healthz'));
      await operation.getByRole('button', { name: 'Execute' }).click();
      const response = await answered;
      expect(new URL(response.url()).pathname).to.equal(`${PREFIX}/healthz`);
      expect(response.status()).to.equal(200);
      await operation.locator('.live-responses-table .response-col_status', { hasText: '200' }).first().waitFor();
      // Everything the page asked for stayed inside the prefix.
      expect(calls.filter((path) => !path.startsWith(`${PREFIX}/`))).to.deep.equal([]);
    });
  });
});
