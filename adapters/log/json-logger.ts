import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import type { Logger, LogLevel } from '../../lib/index.js';
import { SILENT_LOGGER } from '../../lib/internal.js';

/** Settings of {@link createJsonLogger}. */
export interface JsonLoggerOptions {
  /** The least severe level written. @default 'info' */
  level?: LogLevel;
  /** Where lines go. @default standard error */
  destination?: DestinationStream | Writable;
}

/**
 * The log of Dossier's processes (`dossier serve` and `dossier worker`): one JSON object a line (`time`
 * as ISO 8601, `level` by name, `msg`).
 * Nothing here ever sees a key or the `Authorization` header: callers log ids. At level `silent` it is
 * {@link SILENT_LOGGER}, so that callers can skip what only log lines need.
 */
export function createJsonLogger({ level = 'info', destination }: JsonLoggerOptions = {}): Logger {
  if (level === 'silent') return SILENT_LOGGER;
  // pino is an optional peer dependency, loaded when a log is made: an app that mounts Dossier with a
  // logger of its own never needs it.
  // Loaded when the app runs, not by a bundler (Next.js) when it is built: an app without pino still builds.
  const { pino } = createRequire(import.meta.url)(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ 'pino',
  ) as typeof import('pino');
  const logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A field someone adds later must not leak a secret.
      redact: { paths: ['authorization', 'headers.authorization', 'key', 'secret', 'token'], censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

let second = NaN;
let secondText = '';

/**
 * pino's `isoTime` (`,"time":"2026-11-26T20:45:36.123Z"`), with the date and time to the second made
 * once a second: under load, a `Date` and its `toISOString` on every line were a tenth of the line's cost.
 */
function isoTime(): string {
  const now = Date.now();
  const ms = now % 1000;
  if (now - ms !== second) {
    second = now - ms;
    secondText = new Date(second).toISOString().slice(0, 20);
  }
  return `,"time":"${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}
