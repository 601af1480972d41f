import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDossier, type Dossier, DossierError, type DossierOptions, isDossierError } from '../../lib/index.js';
import type { CliOutput } from './exit.js';

// What the long-running processes (`dossier serve`, `dossier worker`, the examples' servers) share:
// starting a Dossier that logs to standard error, reading the environment, and hearing the stop signal.

/** The log a process writes (the server's adds each request's fields; the worker's is plain). */
export type ProcessLog = Pick<typeof import('../log/json-logger.js'), 'createJsonLogger'>;

/** The least time stores get to close at shutdown, even past the shutdown deadline. */
export const STORE_CLOSE_MIN_MS = 1000;

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
