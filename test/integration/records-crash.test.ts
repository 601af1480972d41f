import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { backendCases } from '../contracts/backends.js';
import { serve, stop } from '../support/cli.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';

// docs/contract.md §7, "A process killed at any moment costs the others nothing": two `dossier serve`
// processes on one store, clients creating, listing and deleting watches and creating keys on both,
// one process SIGKILLed at a random moment of each round and started again. Whatever was answered 2xx
// must read back exactly, the owner's list must agree with the records (every watch answered 201 and not
// deleted listed, nothing else, the total exact), and the key count exact. The latency of the living
// process's requests in the two seconds after each kill is printed beside its latency before (not
// asserted: the machine is shared).

const TOKEN = 'records-crash-admin-token-0123456789abcdef';
const ROUNDS = 5;
const CLIENTS = 4;

interface Process {
  url: string;
  child: ChildProcess;
}

/** One request, timed; a failure to connect (the process just killed) counts as no answer. */
async function call(
  url: string,
  init: RequestInit & { bearer: string },
): Promise<{ status: number; body: Record<string, unknown>; ms: number } | undefined> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${init.bearer}` } });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
      ms: performance.now() - started,
    };
  } catch {
    return undefined;
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('a process killed at any moment costs the others nothing', function () {
  this.timeout(240_000);
  const { cases } = backendCases();
  let dns: TestDnsServer;
  let receiver: TestReceiver;

  before(async () => {
    dns = await startDnsServer({
      'example.test': { A: [{ address: '192.0.2.1', ttl: 60 }] },
      'hooks.test': { A: [{ address: '127.0.0.1', ttl: 60 }] },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await dns.close();
  });

  for (const backend of cases.filter((each) => each.shared)) {
    it(`on ${backend.name}: every 2xx reads back, the lists agree with the records, the counts are exact`, async () => {
      const env = {
        DOSSIER_STORE: backend.url(),
        DOSSIER_ADMIN_TOKEN: TOKEN,
        DOSSIER_DNS_SERVERS: dns.address,
        DOSSIER_ALLOW_PRIVATE_TARGETS: 'true',
        DOSSIER_WATCHES_PER_KEY: '10000',
      };
      const processes: Process[] = [await serve(env), await serve(env)];
      try {
        const made = await call(`${processes[0]!.url}/admin/api/keys`, {
          method: 'POST',
          bearer: TOKEN,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'crash', owner: `acct-${backend.name}` }),
        });
        const secret = String((made!.body.data as Record<string, unknown>).key);
        const keysBefore = Number(
          ((await call(`${processes[0]!.url}/admin/api/keys?limit=1`, { bearer: TOKEN }))!.body.meta as Record<string, unknown>)
            .total,
        );
        const live = new Set<string>();
        const deleted = new Set<string>();
        let keysMade = 0;
        const latency = { before: [] as number[], after: [] as number[] };
        const hook = `http://hooks.test:${receiver.port}/in`;

        for (let round = 0; round < ROUNDS; round += 1) {
          let killedAt: number | undefined;
          const victim = round % 2;
          const survivor = processes[1 - victim]!;
          let running = true;
          const clients = Array.from({ length: CLIENTS }, async (_, client) => {
            for (let n = 0; running; n += 1) {
              const target = processes[(client + n) % 2]!;
              const kind = n % 5;
              const answer =
                kind === 0 || kind === 1
                  ? await call(`${target.url}/api/watches`, {
                      method: 'POST',
                      bearer: secret,
                      headers: { 'Content-Type': 'application/json' },
                      body: JSON.stringify({ type: 'dns', domain: 'example.test', webhook_url: hook, interval_seconds: 3600 }),
                    })
                  : kind === 2 && live.size > 0
                    ? await (async () => {
                        const id = [...live][n % live.size]!;
                        const removed = await call(`${target.url}/api/watches/${id}`, { method: 'DELETE', bearer: secret });
                        // Unanswered (its process killed), the removal may or may not have happened.
                        live.delete(id);
                        if (removed?.status === 204) deleted.add(id);
                        return removed;
                      })()
                    : kind === 3
                      ? await call(`${target.url}/admin/api/keys`, {
                          method: 'POST',
                          bearer: TOKEN,
                          headers: { 'Content-Type': 'application/json' },
                          body: JSON.stringify({ name: `k${round}-${n}` }),
                        })
                      : await call(`${target.url}/api/watches?limit=50`, { bearer: secret });
              if (answer === undefined) {
                await sleep(20); // the process being killed or started again
                continue;
              }
              if (kind <= 1 && answer.status === 201) live.add(String((answer.body.data as Record<string, unknown>).id));
              if (kind === 3 && answer.status === 201) keysMade += 1;
              expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 201, 204, 404]);
              if (target === survivor) {
                const since = killedAt === undefined ? undefined : performance.now() - killedAt;
                if (since === undefined) latency.before.push(answer.ms);
                else if (since < 2000) latency.after.push(answer.ms);
              }
            }
          });
          await sleep(300 + Math.random() * 700);
          processes[victim]!.child.kill('SIGKILL');
          killedAt = performance.now();
          await once(processes[victim]!.child, 'exit');
          await sleep(2000);
          processes[victim] = await serve(env);
          await sleep(300);
          running = false;
          await Promise.all(clients);
        }

        // Every watch answered 201 and not deleted is listed, readable, and nothing else is; totals exact.
        const listed: string[] = [];
        let cursor: string | null = null;
        let total = -1;
        do {
          const page: { status: number; body: Record<string, unknown> } | undefined = await call(
            `${processes[0]!.url}/api/watches?limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
            { bearer: secret },
          );
          const meta = page!.body.meta as { total: number; next_cursor: string | null };
          total = meta.total;
          listed.push(...(page!.body.data as { id: string }[]).map(({ id }) => id));
          cursor = meta.next_cursor;
        } while (cursor !== null);
        expect(listed, 'every watch answered 201 and not deleted').to.include.members([...live]);
        for (const id of deleted) expect(listed, `deleted ${id}`).to.not.include(id);
        expect(new Set(listed).size, 'each once').to.equal(listed.length);
        expect(total, 'the total counts what is listed').to.equal(listed.length);
        // A creation cut by the kill is whole or absent: one listed that no answer named is readable whole.
        for (const id of listed) {
          const one = await call(`${processes[1]!.url}/api/watches/${id}`, { bearer: secret });
          expect(one!.status, id).to.equal(200);
        }
        const keys = Number(
          ((await call(`${processes[1]!.url}/admin/api/keys?limit=1`, { bearer: TOKEN }))!.body.meta as Record<string, unknown>)
            .total,
        );
        expect(keys, 'keys answered 201, each counted').to.be.at.least(keysBefore + keysMade);
        console.log(
          `      ${backend.name}: ${ROUNDS} kills, ${live.size} watches live, ${deleted.size} deleted, ${keysMade} keys made; ` +
            `the living process's median latency ${median(latency.before).toFixed(0)} ms before the kills, ` +
            `${median(latency.after).toFixed(0)} ms in the 2 s after (max ${Math.max(0, ...latency.after).toFixed(0)} ms)`,
        );
      } finally {
        await Promise.all(processes.map(({ child }) => stop(child).catch(() => {})));
      }
    });
  }
});
