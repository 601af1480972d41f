import { Writable } from 'node:stream';
import { pino, stdTimeFunctions, type DestinationStream } from 'pino';
import type { Logger, LogLevel } from '../../lib/index.js';
import { SILENT_LOGGER } from '../../lib/internal.js';
import { requestContext } from './request-context.js';

/** Settings of {@link createJsonLogger}. */
export interface JsonLoggerOptions {
  /** The least severe level written. @default 'info' */
  level?: LogLevel;
  /** Where lines go. @default standard error */
  destination?: DestinationStream | Writable;
}

/**
 * The server's logger: one JSON object a line (`time` as ISO 8601, `level` by name, `msg`), and on
 * every line written while a request is served, that request's `request_id` and `key_id`. Nothing
 * here ever sees a key or the `Authorization` header: callers log ids. At level `silent` it is
 * {@link SILENT_LOGGER}, so that the request middleware skips what only log lines need.
 */
export function createJsonLogger({ level = 'info', destination }: JsonLoggerOptions = {}): Logger {
  if (level === 'silent') return SILENT_LOGGER;
  const logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'msg',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => requestContext.getStore() ?? {},
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
