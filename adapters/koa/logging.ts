import { Writable } from 'node:stream';
import { pino, stdTimeFunctions, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from '../../lib/options.js';
import type { Logger } from '../../lib/ports/logger.js';
import { requestContext } from './request-context.js';

/** A {@link Logger} that writes pino's JSON lines, and the pino logger behind it. */
export interface JsonLogger extends Logger {
  /** The pino logger, for what the port does not cover (flushing, child loggers). */
  readonly pino: PinoLogger;
}

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
 * here ever sees a key or the `Authorization` header: callers log ids.
 */
export function createJsonLogger({ level = 'info', destination }: JsonLoggerOptions = {}): JsonLogger {
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
    pino: logger,
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}
