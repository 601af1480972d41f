import type { Logger } from '../../lib/index.js';
import { createJsonLogger as createProcessLogger, type JsonLoggerOptions } from '../log/json-logger.js';
import { requestContext } from './request-context.js';

export type { JsonLoggerOptions } from '../log/json-logger.js';

/**
 * The server's logger: one JSON object a line (`time` as ISO 8601, `level` by name, `msg`), and on
 * every line written while a request is served, that request's `request_id` and `key_id`. At level
 * `silent` it is the core's silent logger, so that the request middleware skips what only log lines need.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  return createProcessLogger(options, () => requestContext.getStore() ?? {});
}
