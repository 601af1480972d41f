import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createDossier } from '../../lib/dossier.js';
import { lookUp } from '../../examples/embed.js';
import { meteredLookups } from '../../examples/metered.js';
import { watchDomain } from '../../examples/watch.js';
import { receiveWebhooks, type DossierEvent } from '../../examples/webhook-receiver.js';
import { createServer } from 'node:http';
import type { WatchEvent } from '../../lib/ports/watches.js';
import { fileURLToPath } from 'node:url';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { projectRoot } from '../support/paths.js';
import { Started, waitUntilPrinted } from '../support/snippets.js';

describe('the examples', () => {
  let dns: TestDnsServer;
  before(async () => {
    dns = await startDnsServer({ 'example.test': { A: [{ address: '93.184.216.34', ttl: 600 }] } });
  });
  after(() => dns.close());

  it('embed: looks up a domain, and the second answer comes from the cache', async () => {
    const { first, cached } = await lookUp('example.test', { DOSSIER_DNS_SERVERS: dns.address });
    expect(first.A).to.deep.equal([{ address: '93.184.216.34', ttl: 600 }]);
    expect(cached).to.equal(true);
  });

  it('metered: counts lookups against a key from a plain script, refuses the one past the limit, and reports usage', async () => {
    const lines = await meteredLookups('example.test', { DOSSIER_DNS_SERVERS: dns.address });
    expect(lines).to.deep.equal([
      'ok (cached: false), 1 left today',
      'ok (cached: true), 0 left today',
      'ERR_QUOTA_EXCEEDED: This key has used its 2 lookups for today.',
      'used today: 2 of 2',
    ]);
  });

  it('watch: hears a change of DNS records in-process, with no webhook, after a baseline', async () => {
    const changes: WatchEvent[] = [];
    let heard!: () => void;
    const changed = new Promise<void>((resolve) => (heard = resolve));
    const watching = await watchDomain(
      'example.test',
      (event) => {
        changes.push(event);
        heard();
      },
      { env: { DOSSIER_DNS_SERVERS: dns.address } },
    );
    try {
      while ((await watching.dossier.watches.get(watching.watchId)).lastCheckedAt === null) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(changes).to.deep.equal([]);
      dns.zone['example.test']!.A = [{ address: '93.184.216.35', ttl: 600 }];
      await watching.dossier.watches.check(watching.watchId);
      await changed;
      expect(changes.map((event) => event.data)).to.deep.equal([
        { changes: { A: { added: ['93.184.216.35'], removed: ['93.184.216.34'] } } },
      ]);
    } finally {
      dns.zone['example.test']!.A = [{ address: '93.184.216.34', ttl: 600 }];
      await watching.close();
    }
  });

  it('watch, run as a program: keeps watching until stopped, and ends at SIGTERM', async function () {
    this.timeout(60_000);
    const program = new Started(
      process.execPath,
      [fileURLToPath(new URL('../../examples/watch.js', import.meta.url)), 'example.test'],
      {
        cwd: projectRoot(),
        env: { ...process.env, DOSSIER_DNS_SERVERS: dns.address, DOSSIER_LOG_LEVEL: 'warn' },
      },
    );
    try {
      await waitUntilPrinted(program, 'watching example.test');
      // The checks' timers do not hold a process open: the program does, until it is told to stop.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(program.running, program.output).to.equal(true);
      program.child.kill('SIGTERM');
      const ran = await program.exited;
      expect([ran.status, ran.signal], ran.output).to.deep.equal([0, null]);
    } finally {
      if (program.running) await program.stop();
    }
  });

  it('webhook-receiver: takes a signed delivery of Dossier once, and refuses one whose signature is wrong', async () => {
    dns.zone['hooks.test'] = { A: [{ address: '127.0.0.1', ttl: 60 }] };
    const dossier = createDossier({ store: 'memory://', dnsServers: [dns.address], allowPrivateTargets: true });
    const events: DossierEvent[] = [];
    let heard!: () => void;
    const delivered = new Promise<void>((resolve) => (heard = resolve));
    // The secret is known once the watch exists, and the watch needs the receiver's address first.
    let handle: ReturnType<typeof receiveWebhooks> = (_req, res) => void res.writeHead(503).end();
    const server = createServer((req, res) => handle(req, res)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://hooks.test:${(server.address() as AddressInfo).port}/dossier`;
    try {
      const { watch, secret } = await dossier.watches.create({ type: 'dns', domain: 'example.test', webhookUrl: url });
      handle = receiveWebhooks(secret, (event) => {
        events.push(event);
        heard();
      });
      while ((await dossier.watches.get(watch.id)).lastCheckedAt === null)
        await new Promise((resolve) => setTimeout(resolve, 10));
      dns.zone['example.test']!.A = [];
      await dossier.watches.check(watch.id);
      await delivered;
      expect(events.map((event) => [event.type, event.watch_id, event.data])).to.deep.equal([
        ['dns.changed', watch.id, { changes: { A: { added: [], removed: ['93.184.216.34'] } } }],
      ]);
      let [delivery] = await dossier.watches.deliveries(watch.id);
      while (delivery?.status === 'pending') {
        await new Promise((resolve) => setTimeout(resolve, 10));
        [delivery] = await dossier.watches.deliveries(watch.id);
      }
      expect(delivery).to.include({ status: 'delivered', responseStatus: 204 });
      // A forged body, or one signed with another secret, is refused.
      const forged = await fetch(url.replace('hooks.test', '127.0.0.1'), {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{"type":"dns.changed"}',
      });
      expect(forged.status).to.equal(401);
      expect(events).to.have.length(1);
    } finally {
      dns.zone['example.test']!.A = [{ address: '93.184.216.34', ttl: 600 }];
      server.close();
      await dossier.close();
    }
  });

  it('the package exports what the docs import: the library, each adapter, and serve', async () => {
    // Package self-reference goes through package.json "exports", as a dependent project's import would.
    const entry = async (name: string) => (await import(String(name))) as Record<string, unknown>;
    const lib = await entry('dossier');
    expect(lib.createDossier).to.be.a('function');
    expect(lib.optionsFromEnv).to.be.a('function');
    const koa = await entry('dossier/koa');
    expect(koa.createKoaApp).to.be.a('function');
    expect(koa.createDossierRouter).to.be.a('function');
    expect((await entry('dossier/express')).createDossierRouter).to.be.a('function');
    expect((await entry('dossier/fastify')).dossierPlugin).to.be.a('function');
    expect((await entry('dossier/fetch')).createFetchHandler).to.be.a('function');
    expect((await entry('dossier/serve')).serve).to.be.a('function');
  });
});
