import { expect } from 'chai';
import { createDossier } from '../../lib/dossier.js';
import { createJsonLogger } from '../../adapters/http/logging.js';
import { ADAPTERS, mount, type AdapterName, type MountOptions } from '../support/adapters.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { selectedAdapters } from '../support/harness.js';
import { corpusDifference, recordCorpus, type CorpusEntry } from '../support/wire-corpus.js';

const TOKEN = 'corpus-admin-token-0123456789abcdefghijkl';

/**
 * What a framework or runtime answers itself, before Dossier sees the request, so that its answer is not
 * Dossier's: Fastify's router refuses a malformed escape in the path; a fetch runtime has no Request
 * for a target that is no URL (`*`), none without a Host, and reads the path as a URL does (`{` escaped).
 */
const FRAMEWORK_ANSWERS: Record<AdapterName, RegExp[]> = {
  koa: [],
  express: [],
  fastify: [/^edge: unknown path: GET \/%$/],
  fetch: [/^edge: unknown path: GET \/a\{b\}$/, /^edge: options/, /^edge: .*no Host/, /^edge: HTTP\/1\.0/],
};

interface Recorded {
  entries: CorpusEntry[];
  /** The request log lines, each with its time and duration taken out. */
  logs: Record<string, unknown>[];
}

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
      // The time and duration taken out, ids that vary from run to run named in the order they appear.
      const keys = new Map<unknown, string>();
      const logs = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request')
        .map(({ time: _time, ms: _ms, ...line }) => ({
          ...line,
          request_id: /^[0-9a-f]{12}-/.test(String(line.request_id)) ? '<generated>' : line.request_id,
          key_id:
            line.key_id === null
              ? null
              : (keys.get(line.key_id) ?? keys.set(line.key_id, `<key-${keys.size + 1}>`).get(line.key_id)),
        }));
      return { entries, logs };
    } finally {
      await served.close();
      await dossier.close();
    }
  }

  /**
   * `recorded` without what `adapter`'s framework answers itself, nor its log lines; under a prefix, also
   * without `OPTIONS *`, which is no path under it (the app answers it).
   */
  function dossiers(recorded: Recorded, adapter: AdapterName, prefixed: boolean): Recorded {
    const answeredElsewhere = [...FRAMEWORK_ANSWERS[adapter], ...(prefixed ? [/^edge: options, asterisk/] : [])];
    const own = (entry: CorpusEntry): boolean => !answeredElsewhere.some((pattern) => pattern.test(entry.name));
    const theirs = new Set(recorded.entries.filter((entry) => !own(entry)).map((entry) => entry.requestId));
    return {
      entries: recorded.entries.filter(own),
      logs: recorded.logs.filter((line) => !theirs.has(line.request_id as string)),
    };
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

      it('answers every request of the corpus, through Koa, with a JSON error or what the contract says', () => {
        expect(koa.entries.length).to.be.greaterThan(250);
        for (const entry of koa.entries) expect(entry.answer, entry.name).to.match(/^HTTP\/1\.1 \d{3} /);
        expect(koa.logs.length).to.be.greaterThan(200);
      });

      for (const adapter of ADAPTERS.filter((name) => name !== 'koa' && selectedAdapters().includes(name))) {
        it(`answers as Koa does through ${adapter}: the status line, every header (but the date) and the body, and the same log lines`, async () => {
          const prefixed = 'prefix' in mounting;
          const got = dossiers(await record(adapter, token, mounting), adapter, prefixed);
          const want = dossiers(koa, adapter, prefixed);
          // Headers compared by name in any case and order: a framework may write names in lower case.
          const byName = (entries: CorpusEntry[]): CorpusEntry[] =>
            entries.map((entry) => ({ ...entry, answer: headersSorted(entry.answer) }));
          const difference = corpusDifference(byName(want.entries), byName(got.entries));
          expect(difference, difference).to.equal(undefined);
          expect(got.logs).to.deep.equal(want.logs);
        });
      }
    });
  }
});

/** An answer with its header lines lower-cased by name and sorted. */
function headersSorted(answer: string): string {
  const end = answer.indexOf('\n\n');
  const [status, ...headers] = answer.slice(0, end).split('\n');
  const named = headers.map((line) => {
    const colon = line.indexOf(':');
    return `${line.slice(0, colon).toLowerCase()}:${line.slice(colon + 1)}`;
  });
  return [status, ...named.sort()].join('\n') + answer.slice(end);
}
