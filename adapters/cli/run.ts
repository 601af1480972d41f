import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  type ApiKey,
  createDossier,
  type Dossier,
  DossierError,
  DossierValidationError,
  type KeyChanges,
  optionsFromEnv,
  type Scope,
} from '../../lib/index.js';
import { redact } from '../../lib/internal.js';
import { loadKoaAdapter, loadProcessLog, type ProcessLog } from './optional-adapters.js';
import { LISTEN_BACKLOG } from './listen-backlog.js';
import { listWatches, removeWatch } from './watches-command.js';
import { keyJson, type KeyJson } from '../keys/key-json.js';

/** Where the command writes. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage:
  dossier serve                          serve the HTTP API on HOST:PORT (default 127.0.0.1:3000), and run
                                         the checks and deliveries of watches unless DOSSIER_WORKERS=false
  dossier worker                         run the checks and deliveries of watches, without HTTP
  dossier watches list --key KEY_ID [--json]
                                         the watches a key created, newest first
  dossier watches remove WATCH_ID        removes a watch: no check and no delivery after it
  dossier keys create --name NAME [--owner ID] [--scopes lookup,documents] [--daily-limit N]
                      [--expires YYYY-MM-DD|ISO-8601] [--json]
  dossier keys list [--json]             every key, newest last, with its status, expiry and use today
  dossier keys update KEY_ID [--name NAME] [--scopes lookup,documents] [--daily-limit N|default]
                      [--expires YYYY-MM-DD|ISO-8601|never] [--json]
  dossier keys roll KEY_ID [--grace SECONDS] [--json]
                                         a new secret; the old one keeps working for SECONDS (default 0)
  dossier keys revoke KEY_ID [--json]   revokes a key and removes its watches
Configuration comes from the DOSSIER_* environment variables (see README).
`;

/** The `keys` subcommands, and the options each takes (besides `--json`). */
const KEY_COMMANDS: Record<string, string[]> = {
  create: ['name', 'owner', 'scopes', 'daily-limit', 'expires'],
  list: [],
  update: ['name', 'scopes', 'daily-limit', 'expires'],
  roll: ['grace'],
  revoke: [],
};

/** The `watches` subcommands. */
const WATCH_COMMANDS: Record<string, typeof listWatches> = { list: listWatches, remove: removeWatch };

/**
 * Runs the `dossier` command and returns its exit code: 0 on success, 1 on failure, 2 on bad usage.
 * `serve` returns only once the server has stopped (on SIGINT or SIGTERM).
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const [command, subcommand] = argv;
  if (argv.some((arg) => arg === '--help' || arg === '-h') || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    if (command === 'serve') return await serve(env, io);
    if (command === 'worker') return await worker(env, io);
    const watchCommand =
      command === 'watches' && subcommand !== undefined && Object.hasOwn(WATCH_COMMANDS, subcommand)
        ? WATCH_COMMANDS[subcommand]
        : undefined;
    if (watchCommand !== undefined) {
      // It runs no checks or deliveries of its own.
      const dossier = createDossier({ ...optionsFromEnv(env), workers: false });
      try {
        await watchCommand(argv.slice(2), dossier, io.out);
        return 0;
      } finally {
        await dossier.close();
      }
    }
    if (command === 'keys' && subcommand !== undefined && Object.hasOwn(KEY_COMMANDS, subcommand)) {
      return await keys(subcommand, argv.slice(2), env, io);
    }
    io.err(USAGE);
    return 2;
  } catch (error) {
    if (error instanceof DossierValidationError) {
      io.err(`dossier: ${Object.values(error.errors).flat().join(' ')}\n`);
      return 2;
    }
    if (error instanceof DossierError) {
      io.err(`dossier: ${error.message}\n`);
      return 1;
    }
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`dossier: ${(error as Error).message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

async function keys(subcommand: string, args: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      owner: { type: 'string' },
      scopes: { type: 'string' },
      'daily-limit': { type: 'string' },
      expires: { type: 'string' },
      grace: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const takesId = ['update', 'roll', 'revoke'].includes(subcommand);
  const expected = takesId ? 1 : 0;
  if (positionals.length > expected) {
    throw new DossierValidationError({ arguments: [`Unexpected argument "${positionals[expected]}".`] });
  }
  const id = positionals[0];
  if (takesId && id === undefined) throw new DossierValidationError({ id: [`Give the id of the key to ${subcommand}.`] });
  for (const option of ['name', 'owner', 'scopes', 'daily-limit', 'expires', 'grace'] as const) {
    if (values[option] !== undefined && !KEY_COMMANDS[subcommand]!.includes(option)) {
      throw new DossierValidationError({ [option]: [`--${option} does not apply to "keys ${subcommand}".`] });
    }
  }
  const dossier = createDossier(optionsFromEnv(env));
  try {
    if (subcommand === 'create') {
      if (values.name === undefined) throw new DossierValidationError({ name: ['--name is required.'] });
      const { key, secret } = await dossier.keys.create({
        name: values.name,
        owner: values.owner,
        scopes: scopesOf(values.scopes),
        dailyLimit: limitOf(values['daily-limit']) ?? null,
        expiresAt: values.expires ?? null,
      });
      if (values.json) {
        const { id: keyId, owner, scopes } = key;
        io.out(`${JSON.stringify({ id: keyId, key: secret, owner, scopes, daily_limit: dossier.metering.limitOf(key) })}\n`);
      } else {
        const expiry = key.expiresAt === null ? '' : `, expires ${key.expiresAt}`;
        io.out(
          `Created key ${key.id} for owner ${key.owner} (${key.scopes.join(', ')}, ${dossier.metering.limitOf(key)} lookups a day${expiry}).\n`,
        );
        io.out(`Key: ${secret}\nThis is the only time the key is shown: store it now.\n`);
      }
      return 0;
    }
    if (subcommand === 'list') {
      const all = await Promise.all((await dossier.keys.list()).map((key) => keyJson(dossier, key)));
      if (values.json) {
        io.out(`${JSON.stringify(all)}\n`);
      } else if (all.length === 0) {
        io.out('No keys yet. Create one with: dossier keys create --name NAME\n');
      } else {
        for (const key of all) {
          const state = key.status === 'revoked' ? `revoked ${key.revoked_at}` : key.status;
          io.out(
            `${key.id}  ${key.name}  owner=${key.owner}  scopes=${key.scopes.join(',')}  daily_limit=${key.daily_limit}  ${state}  ` +
              `expires=${key.expires_at ?? 'never'}  used_today=${key.used_today}\n`,
          );
        }
      }
      return 0;
    }
    if (subcommand === 'update') {
      const changes: KeyChanges = {};
      if (values.name !== undefined) changes.name = values.name;
      if (values.scopes !== undefined) changes.scopes = scopesOf(values.scopes);
      if (values['daily-limit'] !== undefined) changes.dailyLimit = limitOf(values['daily-limit']);
      if (values.expires !== undefined) changes.expiresAt = values.expires === 'never' ? null : values.expires;
      if (Object.keys(changes).length === 0) {
        throw new DossierValidationError({ arguments: ['Give at least one of --name, --scopes, --daily-limit, --expires.'] });
      }
      const key = await keyJson(dossier, await dossier.keys.update(id!, changes));
      io.out(values.json ? `${JSON.stringify(key)}\n` : `Updated key ${key.id}: ${summary(key)}.\n`);
      return 0;
    }
    if (subcommand === 'roll') {
      const grace = values.grace;
      if (grace !== undefined && !/^\d{1,10}$/.test(grace)) {
        throw new DossierValidationError({ grace_seconds: ['--grace must be a whole number of seconds.'] });
      }
      const seconds = grace === undefined ? 0 : Number(grace);
      const { key, secret } = await dossier.keys.roll(id!, seconds);
      if (values.json) {
        io.out(`${JSON.stringify({ ...(await keyJson(dossier, key)), key: secret })}\n`);
      } else {
        const old = seconds === 0 ? 'The old secret no longer works.' : `The old secret keeps working for ${seconds} seconds.`;
        io.out(`Rolled key ${key.id}. ${old}\nKey: ${secret}\nThis is the only time the key is shown: store it now.\n`);
      }
      return 0;
    }
    const key = await dossier.keys.revoke(id!);
    io.out(values.json ? `${JSON.stringify(await keyJson(dossier, key))}\n` : `Revoked key ${key.id} at ${key.revokedAt}.\n`);
    return 0;
  } finally {
    await dossier.close();
  }
}

/** `--scopes a,b` as a list (the key store checks the names). */
function scopesOf(text: string | undefined): Scope[] | undefined {
  return text?.split(',').map((scope) => scope.trim()) as Scope[] | undefined;
}

/**
 * `--daily-limit N` as a number, `default` as `null` (the configured default), absent as `undefined`.
 * @throws DossierValidationError for anything else
 */
function limitOf(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  if (!/^\d{1,10}$/.test(text)) throw new DossierValidationError({ daily_limit: ['--daily-limit must be a whole number.'] });
  return Number(text);
}

function summary(key: KeyJson): string {
  return `name=${key.name} scopes=${key.scopes.join(',')} daily_limit=${key.daily_limit} expires=${key.expires_at ?? 'never'} ${key.status}`;
}

async function serve(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const koa = await loadKoaAdapter();
  const { createKoaApp, answerClientErrorsWithJson, serverOptionsFromEnv } = koa;
  const server = serverOptionsFromEnv(env);
  // Without workers, the watches API still needs its job engine's package: a missing one stops start-up
  // with the line to run, instead of failing each watch request.
  const { dossier, logger } = await start(env, io, koa, (dossier) =>
    dossier.options.workers ? dossier.startWorkers() : void dossier.watches,
  );
  const app = createKoaApp(dossier);
  app.proxy = server.trustProxy;
  // The client's address is the last one of X-Forwarded-For, which the proxy in front added; any
  // before it are whatever the client sent.
  app.maxIpsCount = 1;
  const http = app.listen({ port: server.port, host: server.host, backlog: LISTEN_BACKLOG });
  answerClientErrorsWithJson(http);
  try {
    await once(http, 'listening');
  } catch (error) {
    await dossier.close();
    const code = (error as { code?: string }).code ?? 'error';
    io.err(`dossier: cannot listen on HOST=${server.host} PORT=${server.port} (${code})\n`);
    return 1;
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
  return 0;
}

/**
 * `dossier worker`: this process's share of the checks and deliveries of watches, without HTTP, until
 * SIGINT or SIGTERM; then the jobs held finish (or go back to the engine) and the stores close.
 */
async function worker(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  // The server's log, without the request fields: the worker's lines read as the server's.
  const { dossier, logger } = await start(env, io, await loadProcessLog(), (dossier) => dossier.startWorkers());
  const stopping = stopSignal(); // before the line, as serve does
  io.out(`Dossier worker running (store ${redact(dossier.options.store)})\n`);
  // The engines' timers do not hold the process (a server's socket does); here this one does, until a signal.
  const alive = setInterval(() => {}, 2 ** 30);
  const signal = await stopping;
  clearInterval(alive);
  logger.info('stopping', { signal });
  await dossier.close();
  logger.info('stopped', {});
  return 0;
}

/**
 * A Dossier that logs to `io.err`, its stores open and each GeoIP file read once (before anyone can
 * send a request), and `work` done. On failure the error goes on to runCli, which prints it.
 */
async function start(
  env: NodeJS.ProcessEnv,
  io: CliOutput,
  { createJsonLogger }: ProcessLog,
  work: (dossier: Dossier) => Promise<void> | void,
) {
  const options = optionsFromEnv(env);
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

/** The next SIGINT or SIGTERM, by name. */
async function stopSignal(): Promise<string> {
  const [signal] = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  return String(signal ?? '');
}

/** The least time stores get to close at shutdown, even past the shutdown deadline. */
const STORE_CLOSE_MIN_MS = 1000;

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
