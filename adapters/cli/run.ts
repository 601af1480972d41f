import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createKoaApp } from '../koa/app.js';
import { answerClientErrorsWithJson } from '../koa/client-errors.js';
import { createJsonLogger } from '../koa/logging.js';
import { createDossier, type Dossier } from '../../lib/dossier.js';
import { DossierError, DossierValidationError } from '../../lib/errors.js';
import { optionsFromEnv, serverOptionsFromEnv } from '../../lib/options.js';
import type { ApiKey, Scope } from '../../lib/ports/key-store.js';

/** Where the command writes. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const USAGE = `Usage:
  dossier serve                          serve the HTTP API on HOST:PORT (default 127.0.0.1:3000)
  dossier keys create --name NAME [--owner ID] [--scopes lookup,documents] [--daily-limit N] [--json]
  dossier keys list [--json]
  dossier keys revoke KEY_ID
Configuration comes from the DOSSIER_* environment variables (see README).
`;

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
    if (command === 'keys' && subcommand !== undefined && ['create', 'list', 'revoke'].includes(subcommand)) {
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
      json: { type: 'boolean', default: false },
    },
  });
  const expected = subcommand === 'revoke' ? 1 : 0;
  if (positionals.length > expected) {
    throw new DossierValidationError({ arguments: [`Unexpected argument "${positionals[expected]}".`] });
  }
  const dossier = createDossier(optionsFromEnv(env));
  try {
    if (subcommand === 'create') {
      if (values.name === undefined) throw new DossierValidationError({ name: ['--name is required.'] });
      const limit = values['daily-limit'];
      if (limit !== undefined && !/^\d+$/.test(limit)) {
        throw new DossierValidationError({ daily_limit: ['--daily-limit must be a whole number.'] });
      }
      const { key, secret } = await dossier.keys.create({
        name: values.name,
        owner: values.owner,
        scopes: values.scopes?.split(',').map((scope) => scope.trim()) as Scope[] | undefined,
        dailyLimit: limit === undefined ? null : Number(limit),
      });
      if (values.json) {
        const { id, owner, scopes } = key;
        io.out(`${JSON.stringify({ id, key: secret, owner, scopes, daily_limit: dossier.dailyLimitOf(key) })}\n`);
      } else {
        io.out(
          `Created key ${key.id} for owner ${key.owner} (${key.scopes.join(', ')}, ${dossier.dailyLimitOf(key)} lookups a day).\n`,
        );
        io.out(`Key: ${secret}\nThis is the only time the key is shown: store it now.\n`);
      }
      return 0;
    }
    if (subcommand === 'list') {
      const all = await dossier.keys.list();
      if (values.json) {
        io.out(`${JSON.stringify(all.map((key) => describe(key, dossier)))}\n`);
      } else if (all.length === 0) {
        io.out('No keys yet. Create one with: dossier keys create --name NAME\n');
      } else {
        for (const key of all) {
          const state = key.revokedAt ? `revoked ${key.revokedAt}` : 'active';
          io.out(
            `${key.id}  ${key.name}  owner=${key.owner}  scopes=${key.scopes.join(',')}  daily_limit=${dossier.dailyLimitOf(key)}  ${state}\n`,
          );
        }
      }
      return 0;
    }
    const id = positionals[0];
    if (id === undefined) throw new DossierValidationError({ id: ['Give the id of the key to revoke.'] });
    const key = await dossier.keys.revoke(id);
    io.out(values.json ? `${JSON.stringify(describe(key, dossier))}\n` : `Revoked key ${key.id} at ${key.revokedAt}.\n`);
    return 0;
  } finally {
    await dossier.close();
  }
}

/** A key as the CLI prints it: snake_case, like the HTTP API. */
function describe(key: ApiKey, dossier: Dossier): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    owner: key.owner,
    scopes: key.scopes,
    daily_limit: dossier.dailyLimitOf(key),
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
  };
}

async function serve(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const server = serverOptionsFromEnv(env);
  const options = optionsFromEnv(env);
  const logger = createJsonLogger({ level: options.logLevel ?? 'info', destination: { write: (line: string) => io.err(line) } });
  const dossier = createDossier({ ...options, logger });
  try {
    // Opens the stores and reads each GeoIP file once, before anyone can send a request.
    await dossier.ready();
  } catch (error) {
    await dossier.close();
    if (!(error instanceof DossierError)) throw error;
    io.err(`dossier: ${error.message}\n`);
    return 1;
  }
  const http = createKoaApp(dossier).listen(server.port, server.host);
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
  io.out(`Dossier listening on http://${host}:${port} (store ${redact(dossier.options.store)})\n`);
  logger.info('listening', { url: `http://${host}:${port}` });
  const [signal] = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  const deadline = Date.now() + dossier.options.shutdownTimeoutMs;
  logger.info('stopping', { signal: String(signal ?? '') });
  const drained = await stopServing(http, dossier.options.shutdownTimeoutMs, () =>
    Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]),
  );
  // A store whose server froze may never confirm its close: it gets what is left of the deadline
  // (at least a second), and the process exits anyway (see main.ts).
  const closed = await Promise.race([
    dossier.close().then(() => true),
    sleep(Math.max(deadline - Date.now(), STORE_CLOSE_MIN_MS)).then(() => false),
  ]);
  logger.info('stopped', { drained, stores_closed: closed });
  return 0;
}

/** The least time stores get to close at shutdown, even past the shutdown deadline. */
const STORE_CLOSE_MIN_MS = 1000;

/**
 * Stops a server gracefully: it stops accepting connections at once, answers the requests in flight,
 * and closes each connection as soon as it is idle. Connections still busy after `timeoutMs` (or at a
 * second signal) are cut. Resolves true when every request in flight finished.
 */
async function stopServing(http: Server, timeoutMs: number, secondSignal: () => Promise<unknown>): Promise<boolean> {
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // close() closes the connections idle now; these close those that become idle while draining.
  const sweeper = setInterval(() => http.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const drained = await Promise.race([closed.then(() => true), late, secondSignal().then(() => false as const)]);
    if (!drained) {
      http.closeAllConnections();
      await closed;
    }
    return drained;
  } finally {
    clearInterval(sweeper);
    clearTimeout(timer);
  }
}

/** Hides a password in a store URL. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}
