import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Dossier, optionsFromEnv } from '../../lib/index.js';
import { redact } from '../../lib/internal.js';
import {
  answerClientErrorsWithJson,
  applyKeepAlive,
  createJsonLogger,
  serverOptionsFromEnv,
  type ServerOptions,
} from '../http/index.js';
import { EXIT, reportFailure, type CliOutput } from './exit.js';
import { LISTEN_BACKLOG } from './listen-backlog.js';
import { readEveryOption, start, STORE_CLOSE_MIN_MS, stopSignal } from './process.js';

/** What an app that serves Dossier is made from. */
export interface ServeContext {
  /** A Dossier configured from the environment (`DOSSIER_*`), logging to standard error, its stores open. */
  dossier: Dossier;
  /** The server's own settings: `HOST`, `PORT`, `DOSSIER_TRUST_PROXY`, `DOSSIER_KEEP_ALIVE_TIMEOUT_MS`. */
  settings: ServerOptions;
}

/** Makes the HTTP server of an app that mounts Dossier; `serve` makes it listen. */
export type ServerMaker = (context: ServeContext) => Server | Promise<Server>;

const STANDARD_OUTPUT: CliOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/**
 * Runs an app that mounts Dossier as `dossier serve` runs its own (every example of
 * `examples/serve-*.ts` is one), until SIGTERM or SIGINT: configured from the environment (every
 * `DOSSIER_*` variable, `HOST`, `PORT`; every bad one named at once), one JSON log line per request on
 * standard error, watches' checks and deliveries unless `DOSSIER_WORKERS=false`; the server answers in
 * JSON what Node would answer itself and keeps idle connections `DOSSIER_KEEP_ALIVE_TIMEOUT_MS`. It
 * prints `Dossier listening on http://HOST:PORT` once it listens. On the signal it stops accepting
 * connections, lets the requests in flight finish (up to `DOSSIER_SHUTDOWN_TIMEOUT_MS`), closes idle
 * connections, closes the stores, and resolves with the exit code (0; a failure is said on standard
 * error as `dossier: …`, with the code of docs/cli.md).
 */
export async function serve(
  makeServer: ServerMaker,
  env: NodeJS.ProcessEnv = process.env,
  io: CliOutput = STANDARD_OUTPUT,
): Promise<number> {
  try {
    return await serveUntilStopped(makeServer, env, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

async function serveUntilStopped(makeServer: ServerMaker, env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  // Every bad variable is named at once, the server's and the core's alike.
  const [settings, options] = readEveryOption(
    () => serverOptionsFromEnv(env),
    () => optionsFromEnv(env),
  );
  // Without workers, the watches API still needs its job engine's package: a missing one stops start-up
  // with the line to run, instead of failing each watch request.
  const { dossier, logger, log } = await start(options, io, { createJsonLogger }, (dossier) =>
    dossier.options.workers ? dossier.startWorkers() : void dossier.watches,
  );
  let http: Server;
  try {
    http = await makeServer({ dossier, settings });
  } catch (error) {
    await Promise.race([dossier.close(), sleep(STORE_CLOSE_MIN_MS)]);
    log.close();
    throw error;
  }
  answerClientErrorsWithJson(http);
  applyKeepAlive(http, settings);
  http.listen({ port: settings.port, host: settings.host, backlog: LISTEN_BACKLOG });
  try {
    await once(http, 'listening');
  } catch (error) {
    await dossier.close();
    log.close();
    const code = (error as { code?: string }).code ?? 'error';
    io.err(`dossier: cannot listen on HOST=${settings.host} PORT=${settings.port} (${code})\n`);
    return EXIT.cannotListen;
  }
  const { address, port } = http.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const panel = dossier.options.adminToken === undefined ? '' : `Administration panel on http://${host}:${port}/admin\n`;
  // Heard from before the line is written: a signal sent on reading it must find the listeners there,
  // or it would end the process at once instead of stopping it gracefully.
  const stopping = stopSignal();
  // One write, so that a reader of the first line has the second too.
  io.out(`Dossier listening on http://${host}:${port} (store ${redact(dossier.options.store)})\n${panel}`);
  logger.info('listening', { url: `http://${host}:${port}` });
  const signal = await stopping;
  const deadline = Date.now() + dossier.options.shutdownTimeoutMs;
  logger.info('stopping', { signal });
  const drained = await stopServing(http, dossier.options.shutdownTimeoutMs);
  // A store whose server froze may never confirm its close: it gets what is left of the deadline
  // (at least a second), and the process exits anyway (see main.ts).
  const closed = await Promise.race([
    dossier.close().then(() => true),
    sleep(Math.max(deadline - Date.now(), STORE_CLOSE_MIN_MS)).then(() => false),
  ]);
  logger.info('stopped', { drained, stores_closed: closed });
  log.close();
  return EXIT.done;
}

/**
 * Stops a server gracefully: it stops accepting connections at once, answers the requests in flight,
 * and closes each connection as soon as it is idle. Connections still busy after `timeoutMs` (or at a
 * second signal) are cut. Resolves true when every request in flight finished.
 */
async function stopServing(http: Server, timeoutMs: number): Promise<boolean> {
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // close() closes the connections idle now; these close those that become idle while draining.
  const sweeper = setInterval(() => http.closeIdleConnections(), 50);
  // Unref'd, it is left to run out: it holds the process no longer than the sweeper does.
  const late = sleep(timeoutMs, false, { ref: false });
  try {
    const drained = await Promise.race([closed.then(() => true), late, stopSignal().then(() => false)]);
    if (!drained) {
      http.closeAllConnections();
      await closed;
    }
    return drained;
  } finally {
    clearInterval(sweeper);
  }
}
