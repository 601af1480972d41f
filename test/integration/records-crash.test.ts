import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { backendCases } from '../contracts/backends.js';
import { serve, stop } from '../support/cli.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startReceiver, type TestReceiver } from '../support/webhook-receiver.js';

// docs/contract.md §7, "A process killed at any moment costs the others nothing": two `dossier serve`
// processes on one store, clients sending a mix to both (watch creates, deletes and lists, key creates,
// lookups, document creates plain and streamed, updates and deletes), one process SIGKILLed at a random
// moment of each round and started again. Whatever was answered 2xx must read back exactly; the lists
// must agree with the records (every watch or document answered and not deleted listed, nothing deleted
// listed, what a cut write left readable whole, the totals exact); the key count and the quota exact
// (a lookup cut by the kill may have counted, none answered may not). The latency of the living
// process's requests in the two seconds after each kill, and of the restarted process's first request,
// is printed beside the same traffic in a round without a kill (not asserted: the machine is shared).

const TOKEN = 'records-crash-admin-token-0123456789abcdef';
const ROUNDS = 5;
const CLIENTS = 4;
/** How long the round without a kill sends its traffic: about as long as a round with one. */
const CALM_MS = 2500;
/** How long the traffic runs before the round without a kill is timed: a fresh process's first answers are slow. */
const WARM_MS = 1000;

interface Process {
  url: string;
  child: ChildProcess;
}

/** An answer, timed. */
interface Answer {
  status: number;
  body: Record<string, unknown>;
  ms: number;
}

/** One request, timed; a failure to connect (the process just killed) counts as no answer. */
async function call(url: string, init: RequestInit & { bearer: string }): Promise<Answer | undefined> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${init.bearer}` } });
    const text = await response.text();
    return { status: response.status, body: bodyOf(text, response.headers.get('content-type')), ms: performance.now() - started };
  } catch {
    return undefined;
  }
}

/** A JSON body, or the `document` event of a streamed create as `{data}`; `{}` when empty. */
function bodyOf(text: string, type: string | null): Record<string, unknown> {
  if (text === '') return {};
  if (type?.startsWith('text/event-stream')) {
    const event = /event: document\ndata: (.*)\n/.exec(text)?.[1];
    return event === undefined ? { stream: text } : { data: JSON.parse(event) as unknown };
  }
  return JSON.parse(text) as Record<string, unknown>;
}

function json(body: unknown): { headers: Record<string, string>; body: string } {
  return { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** Median, 95th percentile and most of `values`, in ms, as printed. */
function spread(values: number[]): string {
  if (values.length === 0) return 'none';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): string => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(0);
  return `median ${at(0.5)}, p95 ${at(0.95)}, most ${sorted.at(-1)!.toFixed(0)} ms (${values.length})`;
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
        DOSSIER_LOG_LEVEL: 'warn',
      };
      const processes: Process[] = [await serve(env), await serve(env)];
      try {
        const made = await call(`${processes[0]!.url}/admin/api/keys`, {
          method: 'POST',
          bearer: TOKEN,
          // An owner of its own: the shared servers keep what earlier runs wrote.
          ...json({ name: 'crash', owner: `acct-${backend.name}-${randomBytes(4).toString('hex')}`, daily_limit: 1_000_000 }),
        });
        const secret = String((made!.body.data as Record<string, unknown>).key);
        const keysBefore = Number(
          ((await call(`${processes[0]!.url}/admin/api/keys?limit=1`, { bearer: TOKEN }))!.body.meta as Record<string, unknown>)
            .total,
        );
        const live = new Set<string>();
        const deleted = new Set<string>();
        let keysMade = 0;
        const lookups = { answered: 0, cut: 0 };
        // Each client's documents, as last answered; those whose last write was cut; those deleted.
        const documents = Array.from({ length: CLIENTS }, () => new Map<number, Record<string, unknown>>());
        const uncertain = new Set<number>();
        const gone = new Set<number>();
        const latency = { calm: [] as number[], afterKill: [] as number[], firstAfterRestart: [] as number[] };
        const hook = `http://hooks.test:${receiver.port}/in`;

        /** One request of the mix, the `n`-th of `client`, to `target`; what it answered. */
        const send = async (client: number, n: number, target: Process): Promise<Answer | undefined> => {
          const mine = documents[client]!;
          const someDocument = [...mine.keys()][n % Math.max(1, mine.size)];
          switch (n % 10) {
            case 0:
            case 1: {
              const answer = await call(`${target.url}/api/watches`, {
                method: 'POST',
                bearer: secret,
                ...json({ type: 'dns', domain: 'example.test', webhook_url: hook, interval_seconds: 3600 }),
              });
              if (answer?.status === 201) live.add(String((answer.body.data as Record<string, unknown>).id));
              return answer;
            }
            case 2: {
              if (live.size === 0) return undefined;
              const id = [...live][n % live.size]!;
              // Unanswered (its process killed), the removal may or may not have happened.
              live.delete(id);
              const answer = await call(`${target.url}/api/watches/${id}`, { method: 'DELETE', bearer: secret });
              if (answer?.status === 204) deleted.add(id);
              return answer;
            }
            case 3: {
              const answer = await call(`${target.url}/admin/api/keys`, {
                method: 'POST',
                bearer: TOKEN,
                ...json({ name: `k${n}` }),
              });
              if (answer?.status === 201) keysMade += 1;
              return answer;
            }
            case 4:
              return call(`${target.url}/api/watches?limit=50`, { bearer: secret });
            case 5: {
              const answer = await call(`${target.url}/api/dns?domain=example.test`, { bearer: secret });
              if (answer === undefined) lookups.cut += 1;
              else if (answer.status === 200) lookups.answered += 1;
              return answer;
            }
            case 6:
            case 7: {
              const streamed = n % 10 === 7;
              const answer = await call(`${target.url}/api/v1/documents`, {
                method: 'POST',
                bearer: secret,
                headers: { 'Content-Type': 'application/json', ...(streamed ? { Accept: 'text/event-stream' } : {}) },
                body: JSON.stringify({ name: `doc ${client}-${n}`, prompt: `about ${n}` }),
              });
              if (answer?.status === (streamed ? 200 : 201)) {
                const document = answer.body.data as Record<string, unknown>;
                expect(document, JSON.stringify(answer.body)).to.be.an('object');
                mine.set(Number(document.id), document);
              }
              return answer;
            }
            case 8: {
              if (someDocument === undefined) return undefined;
              const answer = await call(`${target.url}/api/v1/documents/${someDocument}`, {
                method: 'PATCH',
                bearer: secret,
                ...json({ name: `renamed ${client}-${n}`, favorite: n % 20 < 10 }),
              });
              if (answer?.status === 200) {
                mine.set(someDocument, answer.body.data as Record<string, unknown>);
                uncertain.delete(someDocument);
              } else if (answer === undefined) uncertain.add(someDocument);
              return answer;
            }
            default: {
              if (someDocument === undefined) return undefined;
              mine.delete(someDocument);
              const answer = await call(`${target.url}/api/v1/documents/${someDocument}`, { method: 'DELETE', bearer: secret });
              if (answer?.status === 200) gone.add(someDocument);
              if (answer === undefined) uncertain.add(someDocument);
              return answer;
            }
          }
        };

        /** Clients sending the mix to both processes until `running()` says stop; each answer to `heard`. */
        const traffic = (running: () => boolean, heard: (target: Process, answer: Answer, sentAt: number) => void) =>
          Array.from({ length: CLIENTS }, async (_, client) => {
            for (let n = client; running(); n += 1) {
              const target = processes[(client + n) % 2]!;
              const sentAt = performance.now();
              const answer = await send(client, n, target);
              if (answer === undefined) {
                await sleep(20); // the process being killed or started again, or nothing to change yet
                continue;
              }
              expect(answer.status, JSON.stringify(answer.body)).to.be.oneOf([200, 201, 204, 404]);
              heard(target, answer, sentAt);
            }
          });

        // The same traffic without a kill, once the processes are warm: what the latency after one is set against.
        let calm = true;
        const calmFrom = performance.now() + WARM_MS;
        const calmClients = traffic(
          () => calm,
          (_, answer, sentAt) => sentAt >= calmFrom && latency.calm.push(answer.ms),
        );
        await sleep(WARM_MS + CALM_MS);
        calm = false;
        await Promise.all(calmClients);

        for (let round = 0; round < ROUNDS; round += 1) {
          let killedAt: number | undefined;
          let restarted: Process | undefined;
          const victim = round % 2;
          const survivor = processes[1 - victim]!;
          let running = true;
          const clients = traffic(
            () => running,
            (target, answer, sentAt) => {
              if (target === survivor && killedAt !== undefined && sentAt >= killedAt && sentAt - killedAt < 2000) {
                latency.afterKill.push(answer.ms);
              }
              if (target === restarted) {
                latency.firstAfterRestart.push(answer.ms);
                restarted = undefined;
              }
            },
          );
          await sleep(300 + Math.random() * 700);
          processes[victim]!.child.kill('SIGKILL');
          killedAt = performance.now();
          await once(processes[victim]!.child, 'exit');
          await sleep(1500);
          processes[victim] = restarted = await serve(env);
          await sleep(500);
          running = false;
          await Promise.all(clients);
        }

        const url = processes[0]!.url;
        // Every watch answered 201 and not deleted is listed, readable, and nothing else is; totals exact.
        const listed: string[] = [];
        let cursor: string | null = null;
        let total = -1;
        do {
          const page: Answer | undefined = await call(
            `${url}/api/watches?limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
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

        // Every document as last answered; none deleted listed; the list's total exact.
        const listedDocuments: number[] = [];
        let documentTotal = -1;
        for (let page = 1; ; page += 1) {
          const answer = await call(`${url}/api/v1/documents?per_page=100&page=${page}`, { bearer: secret });
          const meta = answer!.body.meta as { total: number; last_page: number };
          documentTotal = meta.total;
          listedDocuments.push(...(answer!.body.data as { id: number }[]).map(({ id }) => id));
          if (page >= meta.last_page) break;
        }
        expect(new Set(listedDocuments).size, 'each document once').to.equal(listedDocuments.length);
        expect(documentTotal, 'the total counts what is listed').to.equal(listedDocuments.length);
        const answered = documents.flatMap((mine) => [...mine]);
        expect(listedDocuments, 'every document answered and not deleted').to.include.members(answered.map(([id]) => id));
        for (const id of gone) expect(listedDocuments, `deleted document ${id}`).to.not.include(id);
        for (const [id, document] of answered) {
          if (uncertain.has(id)) continue;
          const read = await call(`${processes[1]!.url}/api/v1/documents/${id}`, { bearer: secret });
          expect(read!.body.data, `document ${id} as answered`).to.deep.equal(document);
        }
        for (const id of listedDocuments) {
          const read = await call(`${processes[1]!.url}/api/v1/documents/${id}`, { bearer: secret });
          expect(read!.status, `document ${id}`).to.equal(200);
        }

        const keys = Number(
          ((await call(`${processes[1]!.url}/admin/api/keys?limit=1`, { bearer: TOKEN }))!.body.meta as Record<string, unknown>)
            .total,
        );
        expect(keys, 'keys answered 201, each counted').to.be.at.least(keysBefore + keysMade);
        const usage = (await call(`${url}/api/usage`, { bearer: secret }))!.body.data as { used_today: number };
        expect(usage.used_today, 'every lookup answered counted').to.be.at.least(lookups.answered);
        expect(usage.used_today, 'nothing counted that was not asked').to.be.at.most(lookups.answered + lookups.cut);

        console.log(
          `      ${backend.name}: ${ROUNDS} kills; ${live.size} watches live, ${deleted.size} deleted; ${answered.length} documents, ` +
            `${gone.size} deleted; ${keysMade} keys made; ${lookups.answered} lookups counted ${usage.used_today}\n` +
            `        latency without a kill: ${spread(latency.calm)}\n` +
            `        the living process's in the 2 s after each kill: ${spread(latency.afterKill)}\n` +
            `        the restarted process's first request: ${spread(latency.firstAfterRestart)}`,
        );
      } finally {
        await Promise.all(processes.map(({ child }) => stop(child).catch(() => {})));
      }
    });
  }
});
