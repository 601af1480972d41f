// The server's logger: one JSON object a line (`time` as ISO 8601, `level` by name, `msg`). The lines a
// request causes carry its `request_id` and `key_id` through the request's own logger (see
// request-context.ts). At level `silent` it is the core's silent logger, so that the request handler
// skips what only log lines need.
export { createJsonLogger, type JsonLoggerOptions } from '../log/json-logger.js';
