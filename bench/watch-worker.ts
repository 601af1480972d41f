import { createContainer } from '../lib/container.js';
import { optionsFromEnv, resolveOptions } from '../lib/options.js';
import type { CounterStore } from '../lib/ports/counter-store.js';
import type { KvStore } from '../lib/ports/kv-store.js';
import { TOKENS } from '../lib/tokens.js';

// The process the watches bench measures (bench/watches.ts): a worker, as `dossier worker` runs one, on
// DOSSIER_STORE, whose calls to the store are counted at Dossier's ports. Asked by message ('report',
// 'reset', 'gc' with --expose-gc), it answers its counts, its checks, its RSS and its heap; SIGTERM
// closes it.

/** The methods of the ports that read, and those that write. */
const READS = new Set(['get', 'getEntry', 'getMany']);
const WRITES = new Set(['set', 'delete', 'increment', 'decrement', 'acquireLease', 'releaseLease']);

const counts = { reads: 0, writes: 0, checks: 0 };

/** `port`, its reads and writes counted in {@link counts}. */
function counted<T extends object>(port: T): T {
  return new Proxy(port, {
    get(target, method) {
      const value: unknown = Reflect.get(target, method);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (READS.has(String(method))) counts.reads += 1;
        else if (WRITES.has(String(method))) counts.writes += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const options = resolveOptions({
  ...optionsFromEnv(process.env),
  telemetry: {
    lookup() {},
    upstream() {},
    quotaRejected() {},
    storeError() {},
    generation() {},
    watchCheck: () => (counts.checks += 1),
  },
});
const { container, close } = createContainer(options);
// Every part that reads the store (the watches, the keys they ask about) does so through these.
container.register(TOKENS.storeKv, { useValue: counted<KvStore>(container.resolve(TOKENS.storeKv)) });
container.register(TOKENS.storeCounters, { useValue: counted<CounterStore>(container.resolve(TOKENS.storeCounters)) });
container.resolve(TOKENS.watchService);
await container.resolve(TOKENS.watchJobs).start();

process.on('message', (message) => {
  if (message === 'reset') Object.assign(counts, { reads: 0, writes: 0 });
  if (message === 'gc') globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send!({ ...counts, rssMiB: rss / 2 ** 20, heapMiB: heapUsed / 2 ** 20 });
});
process.once('SIGTERM', () => {
  void close().finally(() => process.exit(0));
});
process.send!('ready');
