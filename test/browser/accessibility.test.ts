import { expect } from 'chai';
import { seriousViolations } from '../support/axe.js';
import { serverAndPage, suiteChromium } from '../support/browser.js';
import { eachAdapter, startTestServer } from '../support/harness.js';

const TOKEN = 'accessibility-admin-token-0123456789abcdef';

/**
 * axe-core in Chromium on the reference page and the panel's pages: no serious or critical violation
 * (WCAG 2 A and AA, and axe's best practices), through every adapter.
 */
describe('accessibility in Chromium (axe-core)', function () {
  this.timeout(60_000);
  const chromium = suiteChromium();

  eachAdapter(() => {
    const each = serverAndPage(chromium, () => startTestServer({ adminToken: TOKEN }), { width: 1366, height: 800 });

    async function signIn(): Promise<void> {
      const { server, page } = each;
      await page.goto(`${server.url}/admin`);
      await page.getByLabel('Admin token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Create key' }).waitFor();
    }

    it('finds none on /docs, with every operation listed, then with some operations and a schema opened', async function () {
      // axe reads the whole reference twice: 20 s on a quiet machine, 55 s and more beside the rest of the suite.
      this.timeout(180_000);
      const { server, page } = each;
      await page.goto(`${server.url}/docs`);
      await page.locator('.opblock-summary-path').first().waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
      // Opened, an operation shows its parameters, request and answer examples, headers and media types.
      for (const operation of ['Lookups-dnsLookup', 'Lookups-batch', 'Documents-createDocument', 'Lookups-deleteWatch']) {
        await page.locator(`#operations-${operation} .opblock-summary-control`).click();
        await page.locator(`#operations-${operation} .responses-table`).first().waitFor();
      }
      // And the named schemas, one of them opened all the way down.
      await page.locator('.models-control').click();
      await page.locator('.json-schema-2020-12-expand-deep-button').first().click();
      await page.locator('.json-schema-2020-12-property').first().waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });

    it("finds none on the panel's sign-in page", async () => {
      const { server, page } = each;
      await page.goto(`${server.url}/admin`);
      await page.getByLabel('Admin token').waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });

    it("finds none on the panel's keys list", async () => {
      const { server, page } = each;
      await server.dossier.keys.create({ name: 'ci-pipeline', dailyLimit: 500 });
      await server.dossier.keys.create({ name: 'partner-portal', scopes: ['lookup'], expiresAt: '2099-06-30' });
      await signIn();
      await page.getByRole('link', { name: 'partner-portal' }).waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });

    it("finds none on a key's page", async () => {
      const { server, page } = each;
      const { key } = await server.dossier.keys.create({ name: 'ci-pipeline' });
      await signIn();
      await page.goto(`${server.url}/admin/keys/${key.id}`);
      await page.getByRole('img', { name: /total/ }).waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });
  });
});
