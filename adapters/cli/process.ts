import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import { createDossier, type Dossier, DossierError, type DossierOptions, isDossierError } from '../../lib/index.js';
import type { CliOutput } from './exit.js';

// What the long-running processes (`dossier serve`, `dossier worker`, the examples' servers) share:
// starting a Dossier that logs to standard error, reading the environment, and hearing the stop signal.

/** The log a process writes (the server's adds each request's fields; the worker's is plain). */
export type ProcessLog = Pick<typeof import('../log/json-logger.js'), 'createJsonLogger'>;

/** The least time stores get to close at shutdown, even past the shutdown deadline. */
export const STORE_CLOSE_MIN_MS = 1000;

/**
 * How far V8 lets the old generation grow past what its last full collection kept, in percent, in a
 * long-running process (see {@link holdHeapGrowth}).
 */
export const HEAP_GROWING_PERCENT = 50;

/** A log's lines past this many characters waiting are written at once. */
const LOG_BATCH_CHARS = 64 * 1024;

/**
 * Log lines for `write`, written a batch at a time: the lines of one turn of the event loop in one
 * write, or at once past {@link LOG_BATCH_CHARS}. Under load a write (a system call) per line cost more
 * than making the line. `close` writes what waits and stops; the process's exit writes what waits too,
 * so that a line is lost only to a process killed outright.
 */
export class LogBatch {
  private waiting: string[] = [];
  private chars = 0;
  private scheduled = false;
  private closed = false;
  private readonly onExit = (): void => this.flush();

  constructor(private readonly write: (text: string) => void) {
    process.on('exit', this.onExit);
  }

  add(line: string): void {
    if (this.closed) return this.write(line);
    this.waiting.push(line);
    this.chars += line.length;
    if (this.chars >= LOG_BATCH_CHARS) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /** Writes the lines waiting, now. */
  flush(): void {
    if (this.waiting.length === 0) return;
    const text = this.waiting.join('');
    this.waiting = [];
    this.chars = 0;
    this.write(text);
  }

  /** Writes what waits; lines added after are written at once. */
  close(): void {
    this.flush();
    process.off('exit', this.onExit);
    this.closed = true;
  }
}

/**
 * A Dossier that logs to `io.err` (a batch of lines at a time: see {@link LogBatch}; `log.close()`
 * writes the last ones), its stores open and each GeoIP file read once (before anyone can send a
 * request), and `work` done. On failure the lines logged so far are written and the error goes on to
 * the caller, which prints it.
 */
export async function start(
  options: DossierOptions,
  io: CliOutput,
  { createJsonLogger }: ProcessLog,
  work: (dossier: Dossier) => Promise<void> | void,
) {
  holdHeapGrowth();
  const log = new LogBatch(io.err);
  const logger = createJsonLogger({ level: options.logLevel, destination: { write: (line: string) => log.add(line) } });
  const dossier = createDossier({ ...options, logger });
  try {
    await dossier.ready();
    await work(dossier);
  } catch (error) {
    // A store that accepts connections but never answers never confirms its close either: it gets
    // STORE_CLOSE_MIN_MS, then the process exits anyway (see main.ts), rather than hang before saying why.
    await Promise.race([dossier.close(), sleep(STORE_CLOSE_MIN_MS)]);
    log.close();
    throw error;
  }
  return { dossier, logger, log };
}

/**
 * Holds the process's heap near what it keeps alive. V8 sets how far the old generation may grow before
 * its next full collection from how fast it was filled at the last one: the collection during start-up
 * (modules, stores) let it grow to four times what it kept. A server whose requests wait on a store
 * (PostgreSQL) has a part of its requests in flight promoted at each scavenge, so its resident memory
 * rose by 40 % over 100,000 requests until that next collection (docs/benchmarks.md, "Memory over
 * 100,000 requests"). Held to 1.5 times what the last collection kept, it stays flat, for a full
 * collection every few seconds under load. A `--heap-growing-percent` on Node's command line wins
 * (`node --heap-growing-percent=0 …` keeps V8's own rule; Node refuses it in `NODE_OPTIONS`).
 */
export function holdHeapGrowth(
  setFlags: (flags: string) => void = v8.setFlagsFromString,
  execArgv: readonly string[] = process.execArgv,
): void {
  if (execArgv.some((flag) => /^--heap[-_]growing[-_]percent\b/.test(flag))) return;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * What each reading of the environment gives.
 * @throws DossierError `ERR_CONFIG_INVALID` naming every bad variable that any of them found
 */
export function readEveryOption<A, B>(first: () => A, second: () => B): [A, B] {
  const problems: string[] = [];
  const attempt = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (!isDossierError(error, 'ERR_CONFIG_INVALID')) throw error;
      problems.push(error.message);
      return undefined as T; // never returned: the problems are thrown below
    }
  };
  const read: [A, B] = [attempt(first), attempt(second)];
  if (problems.length > 0) throw new DossierError('ERR_CONFIG_INVALID', problems.join('; '));
  return read;
}

/** The next SIGINT or SIGTERM, by name. */
export async function stopSignal(): Promise<string> {
  const [signal] = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  return String(signal ?? '');
}
