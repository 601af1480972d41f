import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { defaultJobQueuePrefix } from '../../lib/watches/jobs/bullmq-jobs.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';
import { withQueue } from '../support/bullmq-queue.js';
import { checkedWatch } from '../support/checked-watch.js';

const postgres = process.env.DOSSIER_TEST_POSTGRES;

/** Runs `sql` on the test database, outside any schema of a Dossier. */
async function run(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('watch queues of two Dossiers on one PostgreSQL database', function () {
  const tag = randomBytes(4).toString('hex');
  const schemas = [`queues_${tag}_a`, `queues_${tag}_b`, `queues_${tag}_c`];
  const dossiers: Dossier[] = [];
  let dns: TestDnsServer;
  let receiver: TestReceiver;

  before(async function () {
    if (!postgres) return this.skip();
    for (const schema of schemas) await run(`CREATE SCHEMA ${schema}`);
    dns = await startDnsServer({
      'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
      'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
      'one.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
      'two.test': { A: [{ address: '192.0.2.2', ttl: 60 }] },
    });
    receiver = await startReceiver();
  });

  after(async function () {
    if (!postgres) return;
    await Promise.all(dossiers.splice(0).map((dossier) => dossier.close()));
    for (const schema of schemas) {
      for (const queue of ['watch-checks', 'webhook-deliveries']) {
        await withQueue(urlOf(schema), `${defaultJobQueuePrefix(urlOf(schema))}-${queue}`, (opened) =>
          opened.obliterate({ force: true }),
        );
      }
      await run(`DROP SCHEMA ${schema} CASCADE`);
    }
    await receiver.close();
    await dns.close();
  });

  /** The test database's URL with Dossier's tables in `schema`, the way one database holds several Dossiers. */
  function urlOf(schema: string): string {
    const url = new URL(postgres!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return url.href;
  }

  /** A Dossier on `schema`, at the default queue prefix or at `jobQueuePrefix`. */
  function dossierOn(schema: string, jobQueuePrefix?: string): Dossier {
    const dossier = createDossier({
      store: urlOf(schema),
      ...(jobQueuePrefix === undefined ? {} : { jobQueuePrefix }),
      cache: 'memory://',
      dnsServers: [dns.address],
      allowPrivateTargets: true,
      lookupTimeoutMs: 2000,
    });
    dossiers.push(dossier);
    return dossier;
  }

  /** The ids of the job schedulers (one a scheduled watch) in the check queue of the Dossiers on `schema` (at `prefix`). */
  const scheduled = (schema: string, prefix = defaultJobQueuePrefix(urlOf(schema))): Promise<string[]> =>
    withQueue(urlOf(schema), `${prefix}-watch-checks`, async (queue) =>
      (await queue.getJobSchedulers()).map((scheduler) => scheduler.key),
    );

  it('schedules every watch of a store whose check queue holds none: an upgrade that changed the queue names', async () => {
    // Releases before `dossier-<schema>` named the queues of every schema `dossier`: a deployment that
    // upgrades without setting jobQueuePrefix finds its watches' schedules in queues it no longer reads.
    const schema = schemas[2]!;
    const older = `old_${tag}`;
    const before = dossierOn(schema, older);
    const created = await Promise.all(
      ['one.test', 'two.test'].map((domain) => before.watches.create({ type: 'dns', domain, owner: 'acct' })),
    );
    const ids = created.map(({ watch }) => watch.id).sort();
    expect((await scheduled(schema, older)).sort()).to.deep.equal(ids);
    await before.close();
    dossiers.splice(dossiers.indexOf(before), 1);
    expect(await scheduled(schema)).to.deep.equal([]);

    const after = dossierOn(schema);
    await after.startWorkers();
    expect((await scheduled(schema)).sort()).to.deep.equal(ids);
    for (const id of ids) {
      while ((await after.watches.get(id, { owner: 'acct' })).lastCheckedAt === null) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    await withQueue(urlOf(schema), `${older}-watch-checks`, (queue) => queue.obliterate({ force: true }));
    await withQueue(urlOf(schema), `${older}-webhook-deliveries`, (queue) => queue.obliterate({ force: true }));
  });

  it("checks each Dossier's watches in its own queues: neither takes nor unschedules the other's", async () => {
    const [a, b] = [dossierOn(schemas[0]!), dossierOn(schemas[1]!)];
    const webhookUrl = `http://hooks.test:${receiver.port}/in`;
    await b.startWorkers();
    // a's first check is due at once, while only b works: on a queue they shared, b's workers would take
    // it, find no such watch in b's schema and unschedule it.
    const { watch } = await a.watches.create({ type: 'dns', domain: 'example.test', webhookUrl, owner: 'acct' });
    const theirs = await checkedWatch(b, webhookUrl);
    await a.startWorkers();
    // Until a checked its watch, or its schedule is gone (which ends the wait either way).
    for (;;) {
      if ((await a.watches.get(watch.id, { owner: 'acct' })).lastCheckedAt !== null) break;
      if (!(await scheduled(schemas[0]!)).includes(watch.id)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await a.watches.get(watch.id, { owner: 'acct' })).lastCheckedAt).to.be.a('string');
    expect(await scheduled(schemas[0]!)).to.deep.equal([watch.id]);
    expect(await scheduled(schemas[1]!)).to.deep.equal([theirs]);
    expect((await b.watches.get(theirs, { owner: 'acct' })).lastCheckedAt).to.be.a('string');
  });
});
