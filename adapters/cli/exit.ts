import { isDossierError } from '../../lib/index.js';

// How the `dossier` command, and a server run as `dossier serve` runs (examples/serve-*.ts), end.

/** The exit code of each kind of outcome (docs/cli.md). */
export const EXIT = {
  done: 0,
  /** A failure nobody expected: a bug, reported with its stack. */
  unexpected: 1,
  /** An unknown command or option, a missing or bad argument. */
  usage: 2,
  /** A bad DOSSIER_*, HOST or PORT variable, an unusable GeoIP file, a package to install. */
  config: 3,
  /** No key or watch has the id given. */
  notFound: 4,
  /** The key's state refuses the change (a revoked or expired key cannot be rolled). */
  refused: 5,
  /** The store or the cache did not answer. */
  unavailable: 6,
  /** `serve` cannot listen on HOST:PORT. */
  cannotListen: 7,
} as const;

/** A mistake on the command line, said in a sentence. */
export class UsageError extends Error {}

/** The exit code of a failure; {@link EXIT.unexpected} for one that is not the core's or the command line's. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (!isDossierError(error)) return EXIT.unexpected;
  switch (error.code) {
    case 'ERR_CONFIG_INVALID':
      return EXIT.config;
    case 'ERR_KEY_NOT_FOUND':
    case 'ERR_WATCH_NOT_FOUND':
      return EXIT.notFound;
    case 'ERR_KEY_INACTIVE':
      return EXIT.refused;
    case 'ERR_STORE_UNAVAILABLE':
      return EXIT.unavailable;
    case 'ERR_KEY_INVALID':
    case 'ERR_KEY_INVALID_TEXT':
      return EXIT.usage; // a value given on the command line
    default:
      return EXIT.unexpected;
  }
}

/** What a failure says: a refused value names every field at fault. */
export function messageOf(error: unknown): string {
  const fields = (error as { errors?: Record<string, string[]> }).errors;
  return fields === undefined ? (error as Error).message : Object.values(fields).flat().join(' ');
}

/** Where a command writes. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/**
 * `failure` said on standard error as the `dossier` command says it (`dossier: <message>`), with its
 * exit code. A failure nobody expected is thrown on, for its stack.
 */
export function reportFailure(failure: unknown, io: CliOutput): number {
  const code = exitCodeOf(failure);
  if (code === EXIT.unexpected) throw failure;
  io.err(`dossier: ${messageOf(failure)}\n`);
  return code;
}
