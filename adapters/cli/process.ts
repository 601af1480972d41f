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

/**
 * A Dossier that logs to `io.err`, its stores open and each GeoIP file read once (before anyone can
 * send a request), and `work` done. On failure the error goes on to the caller, which prints it.
 */
export async function start(
  options: DossierOptions,
  io: CliOutput,
  { createJsonLogger }: ProcessLog,
  work: (dossier: Dossier) => Promise<void> | void,
) {
  const logger = createJsonLogger({ level: options.logLevel, destination: { write: (line: string) => io.err(line) } });
  const dossier = createDossier({ ...options, logger });
  try {
    await dossier.ready();
    await work(dossier);
  } catch (error) {
    // A store that accepts connections but never answers never confirms its close either: it gets
    // STORE_CLOSE_MIN_MS, then the process exits anyway (see main.ts), rather than hang before saying why.
    await Promise.race([dossier.close(), sleep(STORE_CLOSE_MIN_MS)]);
    throw error;
  }
  return { dossier, logger };
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
