import { expect } from 'chai';
import { createDossier } from '../../lib/dossier.js';
import { createJsonLogger } from '../../adapters/http/logging.js';
import { ADAPTERS, mount, type AdapterName, type MountOptions } from '../support/adapters.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { selectedAdapters } from '../support/harness.js';
import { corpusDifference, dossiersAnswers, recordCorpus, requestLogs, type Recorded } from '../support/wire-corpus.js';

const TOKEN = 'corpus-admin-token-0123456789abcdefghijkl';

describe('the same answers, byte for byte, through every adapter (a corpus of raw requests over every route)', function () {
  this.timeout(120_000);
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] },
      'nx.example.test': { RCODE: 3 },
    });
  });
  after(() => dns?.close());

  /** The corpus through `adapter`, with or without an admin token, on a fresh Dossier that logs its requests. */
  async function record(adapter: AdapterName, adminToken: string | undefined, mounting: MountOptions = {}): Promise<Recorded> {
    const lines: string[] = [];
    const logger = createJsonLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const dossier = createDossier({
      store: 'memory://',
      cache: 'memory://',
      dnsServers: [dns.address],
      workers: false,
      logger,
      ...(adminToken === undefined ? {} : { adminToken }),
    });
    const served = await mount(adapter, dossier, mounting);
    try {
      const entries = await recordCorpus({ url: served.url + (mounting.prefix ?? ''), adminToken, domain: 'example.test' });
      return { entries, logs: requestLogs(lines) };
    } finally {
      await served.close();
      await dossier.close();
    }
  }

  for (const [label, token, mounting] of [
    ['with the admin panel', TOKEN, {}],
    ['without an admin token', undefined, {}],
    ['mounted under a prefix', TOKEN, { prefix: '/tools/dossier' }],
  ] as const) {
    describe(label, () => {
      let koa: Recorded;
      before(async () => {
        koa = await record('koa', token, mounting);
      });

      it('answers every request of the corpus through Koa, and logs each', () => {
        expect(koa.entries.length).to.be.greaterThan(250);
        for (const entry of koa.entries) expect(entry.answer, entry.name).to.match(/^HTTP\/1\.1 \d{3} /);
        expect(koa.logs.length).to.be.greaterThan(200);
      });

      for (const adapter of ADAPTERS.filter((name) => name !== 'koa' && selectedAdapters().includes(name))) {
        it(`answers as Koa does through ${adapter}: the status line, every header (but the date) and the body, and the same log lines`, async () => {
          const prefixed = 'prefix' in mounting;
          const got = dossiersAnswers(await record(adapter, token, mounting), adapter, prefixed);
          const want = dossiersAnswers(koa, adapter, prefixed);
          const difference = corpusDifference(want.entries, got.entries);
          expect(difference, difference).to.equal(undefined);
          expect(got.logs).to.deep.equal(want.logs);
        });
      }

      it('answers as Koa does through Express 4 too', async function () {
        if (!selectedAdapters().includes('express')) this.skip();
        const prefixed = 'prefix' in mounting;
        const got = dossiersAnswers(await record('express', token, { ...mounting, expressVersion: 4 }), 'express', prefixed);
        const want = dossiersAnswers(koa, 'express', prefixed);
        const difference = corpusDifference(want.entries, got.entries);
        expect(difference, difference).to.equal(undefined);
        expect(got.logs).to.deep.equal(want.logs);
      });
    });
  }
});
