import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import {
  type ApiKey,
  createDossier,
  DossierValidationError,
  type KeyChanges,
  optionsFromEnv,
  type Scope,
} from '../../lib/index.js';
import { redact } from '../../lib/internal.js';
import { EXIT, reportFailure, UsageError, type CliOutput } from './exit.js';
import { loadProcessLog, loadServe } from './optional-adapters.js';
import { start, stopSignal } from './process.js';
import { listWatches, removeWatch } from './watches-command.js';
import { mcp } from './mcp.js';
import { keyJson, pageJson, type KeyJson } from '../http/wire.js';
import { closest } from './closest.js';
import { dossierVersion } from '../version.js';

export { EXIT, type CliOutput } from './exit.js';

const USAGE = `Usage:
  dossier serve                          serve the HTTP API on HOST:PORT (default 127.0.0.1:3000), and run
                                         the checks and deliveries of watches unless DOSSIER_WORKERS=false
  dossier worker                         run the checks and deliveries of watches, without HTTP
  dossier mcp                            serve MCP over stdio for an AI agent's client, as the key in
                                         DOSSIER_KEY (JSON-RPC on standard output, the log on standard error)
  dossier watches list --key KEY_ID [--json]
                                         the watches a key created, newest first
  dossier watches remove WATCH_ID        removes a watch: no check and no delivery after it
  dossier keys create --name NAME [--owner ID] [--scopes lookup,documents] [--daily-limit N]
                      [--expires YYYY-MM-DD|ISO-8601] [--json]
  dossier keys list [--search TEXT] [--status active|revoked|expired] [--limit N] [--cursor C] [--json]
                                         a page of the keys (100), newest first, with their status,
                                         expiry and use today; --cursor C shows the next page
  dossier keys update KEY_ID [--name NAME] [--scopes lookup,documents] [--daily-limit N|default]
                      [--expires YYYY-MM-DD|ISO-8601|never] [--json]
  dossier keys roll KEY_ID [--grace SECONDS] [--json]
                                         a new secret; the old one keeps working for SECONDS (default 0)
  dossier keys revoke KEY_ID [--json]   revokes a key and removes its watches
  dossier --version                      the version of Dossier
Configuration comes from the DOSSIER_* environment variables (see docs/configuration.md).
Exit codes: 0 done, 1 unexpected failure, 2 bad usage, 3 bad configuration, 4 no such key or watch,
5 refused by the key's state, 6 store unavailable, 7 cannot listen.
`;

/** Every command, and the options it takes; a value of `true` is a flag, anything else takes a value. */
const COMMANDS: Record<string, Record<string, boolean>> = {
  serve: {},
  worker: {},
  mcp: {},
  'watches list': { key: false, json: true },
  'watches remove': {},
  'keys create': { name: false, owner: false, scopes: false, 'daily-limit': false, expires: false, json: true },
  'keys list': { search: false, status: false, limit: false, cursor: false, json: true },
  'keys update': { name: false, scopes: false, 'daily-limit': false, expires: false, json: true },
  'keys roll': { grace: false, json: true },
  'keys revoke': { json: true },
};

/** The commands that act on one key or watch, named by its id. */
const TAKES_ID = ['keys update', 'keys roll', 'keys revoke', 'watches remove'];

/**
 * Runs the `dossier` command and returns its exit code (see {@link EXIT}). `serve` returns only once
 * the server has stopped (on SIGINT or SIGTERM).
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    io.out(`dossier ${dossierVersion()}\n`);
    return EXIT.done;
  }
  if (argv.length === 0 || argv.some((arg) => arg === '--help' || arg === '-h') || argv[0] === 'help') {
    (argv.length === 0 ? io.err : io.out)(USAGE);
    return argv.length === 0 ? EXIT.usage : EXIT.done;
  }
  try {
    const { command, values, id } = parseCommand(argv);
    if (command === 'serve') return await serveKoa(env, io);
    if (command === 'worker') return await worker(env, io);
    if (command === 'mcp') return await mcp(env, io);
    if (command.startsWith('watches ')) {
      if (command === 'watches list' && typeof values.key !== 'string') throw new UsageError('--key KEY_ID is required.');
      // It runs no checks or deliveries of its own.
      const dossier = createDossier({ ...optionsFromEnv(env), workers: false });
      try {
        if (command === 'watches remove') await removeWatch(id!, dossier, io.out);
        else await listWatches(String(values.key), values.json === true, dossier, io.out);
        return EXIT.done;
      } finally {
        await dossier.close();
      }
    }
    return await keys(command, id, values, env, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

/**
 * The command that `argv` names, its options and the id it acts on.
 * @throws UsageError naming an unknown command or option (with the closest known one), an option the
 *   command does not take, a missing value, a missing id or a stray argument
 */
function parseCommand(argv: string[]): { command: string; values: Record<string, string | boolean | undefined>; id?: string } {
  const [first = '', second] = argv;
  const grouped = Object.keys(COMMANDS).some((name) => name.startsWith(`${first} `));
  const command = grouped ? `${first} ${second ?? ''}`.trim() : first;
  if (!Object.hasOwn(COMMANDS, command)) {
    if (grouped && second === undefined) {
      const subcommands = Object.keys(COMMANDS).filter((name) => name.startsWith(`${first} `));
      throw new UsageError(`"${first}" needs a command: ${subcommands.join(', ')}. Run dossier --help for usage.`);
    }
    const guess = closest(command, Object.keys(COMMANDS));
    throw new UsageError(
      `Unknown command "${command}"${guess ? `; did you mean "${guess}"?` : '.'} Run dossier --help for usage.`,
    );
  }
  const takes = COMMANDS[command]!;
  const every = Object.assign({}, ...Object.values(COMMANDS)) as Record<string, boolean>;
  const args = argv.slice(grouped ? 2 : 1);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(
        Object.entries(every).map(([name, flag]) => [name, { type: flag ? ('boolean' as const) : ('string' as const) }]),
      ),
    });
  } catch (error) {
    throw usageOfParseError(error, command, Object.keys(takes));
  }
  const { values, positionals } = parsed;
  for (const option of Object.keys(values)) {
    if (!Object.hasOwn(takes, option)) throw new UsageError(`--${option} does not apply to "dossier ${command}".`);
  }
  const expected = TAKES_ID.includes(command) ? 1 : 0;
  if (positionals.length > expected) throw new UsageError(`Unexpected argument "${positionals[expected]}".`);
  if (expected === 1 && positionals[0] === undefined) {
    const [group, verb] = command.split(' ');
    throw new UsageError(`Give the id of the ${group === 'watches' ? 'watch' : 'key'} to ${verb}.`);
  }
  // No option is declared `multiple`: each holds one value.
  return { command, values: values as Record<string, string | boolean | undefined>, id: positionals[0] };
}

/** Node's parser's error, as a sentence about the command. */
function usageOfParseError(error: unknown, command: string, options: string[]): Error {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(message ?? '')?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const guess = closest(option!.replace(/^-+/, ''), options);
      return new UsageError(`Unknown option ${option} for "dossier ${command}"${guess ? `; did you mean --${guess}?` : '.'}`);
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(
        message?.includes('does not take') ? `${option} takes no value.` : `${option} needs a value (${option} VALUE).`,
      );
    default:
      return error as Error;
  }
}

async function keys(
  command: string,
  id: string | undefined,
  values: Record<string, string | boolean | undefined>,
  env: NodeJS.ProcessEnv,
  io: CliOutput,
): Promise<number> {
  const option = (name: string): string | undefined => values[name] as string | undefined;
  const dossier = createDossier(optionsFromEnv(env));
  try {
    if (command === 'keys create') {
      if (option('name') === undefined) throw new UsageError('--name is required.');
      const { key, secret } = await dossier.keys.create({
        name: option('name')!,
        owner: option('owner'),
        scopes: scopesOf(option('scopes')),
        dailyLimit: limitOf(option('daily-limit')) ?? null,
        expiresAt: option('expires') ?? null,
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
      return EXIT.done;
    }
    if (command === 'keys list') {
      const query = Object.fromEntries(
        (['search', 'status', 'limit', 'cursor'] as const).flatMap((name) =>
          option(name) === undefined ? [] : [[name, option(name)]],
        ),
      );
      const page = await pageJson(dossier, query).catch((error: unknown) => {
        if (!(error instanceof DossierValidationError)) throw error;
        const [field, problems] = Object.entries(error.errors)[0]!;
        throw new UsageError(`--${field}: ${problems.join(' ')}`);
      });
      if (values.json) {
        io.out(`${JSON.stringify({ data: page.data, meta: page.meta })}\n`);
      } else if (page.meta.total === 0) {
        io.out(
          query.search === undefined && query.status === undefined
            ? 'No keys yet. Create one with: dossier keys create --name NAME\n'
            : 'No key matches.\n',
        );
      } else {
        for (const key of page.data) {
          const state = key.status === 'revoked' ? `revoked ${key.revoked_at}` : key.status;
          io.out(
            `${key.id}  ${key.name}  owner=${key.owner}  scopes=${key.scopes.join(',')}  daily_limit=${key.daily_limit}  ${state}  ` +
              `expires=${key.expires_at ?? 'never'}  used_today=${key.used_today}\n`,
          );
        }
        const shown = `${page.data.length} of ${page.meta.total} ${page.meta.total === 1 ? 'key' : 'keys'}`;
        io.out(page.meta.next_cursor === null ? `${shown}.\n` : `${shown}; the next page: --cursor ${page.meta.next_cursor}\n`);
      }
      return EXIT.done;
    }
    if (command === 'keys update') {
      const changes: KeyChanges = {};
      if (option('name') !== undefined) changes.name = option('name');
      if (option('scopes') !== undefined) changes.scopes = scopesOf(option('scopes'));
      if (option('daily-limit') !== undefined) changes.dailyLimit = limitOf(option('daily-limit'));
      if (option('expires') !== undefined) changes.expiresAt = option('expires') === 'never' ? null : option('expires');
      if (Object.keys(changes).length === 0) {
        throw new UsageError('Give at least one of --name, --scopes, --daily-limit, --expires.');
      }
      const key = await keyJson(dossier, await dossier.keys.update(id!, changes));
      io.out(values.json ? `${JSON.stringify(key)}\n` : `Updated key ${key.id}: ${summary(key)}.\n`);
      return EXIT.done;
    }
    if (command === 'keys roll') {
      const grace = option('grace');
      if (grace !== undefined && !/^\d{1,10}$/.test(grace)) {
        throw new UsageError('--grace must be a whole number of seconds.');
      }
      const seconds = grace === undefined ? 0 : Number(grace);
      const { key, secret } = await dossier.keys.roll(id!, seconds);
      if (values.json) {
        io.out(`${JSON.stringify({ ...(await keyJson(dossier, key)), key: secret })}\n`);
      } else {
        const old = seconds === 0 ? 'The old secret no longer works.' : `The old secret keeps working for ${seconds} seconds.`;
        io.out(`Rolled key ${key.id}. ${old}\nKey: ${secret}\nThis is the only time the key is shown: store it now.\n`);
      }
      return EXIT.done;
    }
    const key = await dossier.keys.revoke(id!);
    io.out(values.json ? `${JSON.stringify(await keyJson(dossier, key))}\n` : `Revoked key ${key.id} at ${key.revokedAt}.\n`);
    return EXIT.done;
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
 * @throws UsageError for anything else
 */
function limitOf(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text === 'default') return null;
  if (!/^\d{1,10}$/.test(text)) throw new UsageError('--daily-limit must be a whole number, or default.');
  return Number(text);
}

function summary(key: KeyJson): string {
  return `name=${key.name} scopes=${key.scopes.join(',')} daily_limit=${key.daily_limit} expires=${key.expires_at ?? 'never'} ${key.status}`;
}

/**
 * `dossier serve`: the Koa app of every route (createKoaApp), served by {@link serve}, until SIGINT or
 * SIGTERM; `DOSSIER_TRUST_PROXY` says whether the `X-Forwarded-*` of a proxy in front are believed.
 */
async function serveKoa(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const { koa, serve } = await loadServe();
  return serve(
    ({ dossier, settings }) => {
      const app = koa.createKoaApp(dossier);
      app.proxy = settings.trustProxy;
      return createServer(app.callback());
    },
    env,
    io,
  );
}

/**
 * `dossier worker`: this process's share of the checks and deliveries of watches, without HTTP, until
 * SIGINT or SIGTERM; then the jobs held finish (or go back to the engine) and the stores close.
 */
async function worker(env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  // The server's log, without the request fields: the worker's lines read as the server's.
  const { dossier, logger, log } = await start(optionsFromEnv(env), io, await loadProcessLog(), (dossier) =>
    dossier.startWorkers(),
  );
  const stopping = stopSignal(); // before the line, as serve does
  io.out(`Dossier worker running (store ${redact(dossier.options.store)})\n`);
  // The engines' timers do not hold the process (a server's socket does); here this one does, until a signal.
  const alive = setInterval(() => {}, 2 ** 30);
  const signal = await stopping;
  clearInterval(alive);
  logger.info('stopping', { signal });
  await dossier.close();
  logger.info('stopped', {});
  log.close();
  return EXIT.done;
}
