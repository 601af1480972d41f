import type { LOG_LEVELS } from '../config/settings.js';
import type { Logger } from '../ports/logger.js';

/** A logger that writes nothing; adapters recognise it and skip preparing lines for it. */
export const SILENT_LOGGER: Logger = Object.freeze({ info() {}, warn() {}, error() {} });

/** The levels by rank: a logger at a level writes that one and those above it. */
const RANKS = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 } as const satisfies Record<(typeof LOG_LEVELS)[number], number>;

/**
 * The logger of a Dossier given none: one JSON object a line (`{"level":"info","time":"…",…fields,"msg":"…"}`,
 * the shape of `dossier serve`'s log), from `level` up, to `write` (standard error by default). A mounted
 * Dossier so logs each request as the server does, without the host's logger or pino. At `silent` it is
 * {@link SILENT_LOGGER}.
 */
export function createJsonLinesLogger(
  level: (typeof LOG_LEVELS)[number],
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  if (level === 'silent') return SILENT_LOGGER;
  const at = (name: 'info' | 'warn' | 'error'): Logger[typeof name] =>
    RANKS[name] < RANKS[level]
      ? () => {}
      : (message, fields) =>
          write(`${JSON.stringify({ level: name, time: new Date().toISOString(), ...fields, msg: message })}\n`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
