import { X509Certificate } from 'node:crypto';
import { accessSync, constants, readFileSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { isIP } from 'node:net';
import { DossierError } from './errors.js';
import type { Clock } from './ports/clock.js';
import type { DnsResolver } from './ports/dns-resolver.js';
import type { DocumentService } from './ports/document-service.js';
import type { KeyStore } from './ports/key-store.js';
import type { Logger } from './ports/logger.js';
import type { LookupService } from './ports/lookup-service.js';
import type { QuotaStore } from './ports/quota-store.js';
import type { Telemetry } from './ports/telemetry.js';
import type { TextGenerator } from './ports/text-generator.js';

/** A user-defined template (ids 53 to 72). */
export interface CustomTemplateOptions {
  /** The name shown in lists. */
  name: string;
  /** What the generator is told to write. */
  instruction: string;
}

/** Settings of an OpenAI-compatible chat-completions server. */
export interface OpenAiOptions {
  /** Base URL, for example `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Bearer key sent to the server; none for servers that need none. @default undefined */
  apiKey?: string;
  /** Model name. */
  model: string;
}

/**
 * Everything `createDossier` can be told. Each field has a `DOSSIER_*` environment twin (see
 * {@link optionsFromEnv}); a host may also replace any port with its own implementation.
 */
export interface DossierOptions {
  /** Where keys, documents and quota counters live. @default 'sqlite://./data/dossier.sqlite' */
  store?: string;
  /** Where lookup results are cached. @default 'memory://' */
  cache?: string;
  /** Default daily lookup quota of a key. @default 1000 */
  dailyLimit?: number;
  /** DNS servers as `host[:port]` (a name is resolved once by the system); empty means the system's resolvers. @default [] */
  dnsServers?: string[];
  /** `host[:port]` of one whois server asked for every domain. @default undefined */
  whoisServer?: string;
  /** Base URL of one RDAP server asked for every domain. @default undefined */
  rdapUrl?: string;
  /** Path to a MaxMind City database. @default undefined */
  geoipCity?: string;
  /** Path to a MaxMind ASN database. @default undefined */
  geoipAsn?: string;
  /** Port the SSL lookup connects to. @default 443 */
  sslPort?: number;
  /** Extra CA certificates (PEM) the SSL lookup trusts besides Node's own store; for private PKIs and tests. @default [] */
  sslCaCertificates?: string[];
  /** Let lookups connect to loopback and private addresses (tests only). @default false */
  allowPrivateTargets?: boolean;
  /** Which text generator writes documents. @default 'offline' */
  generator?: 'offline' | 'openai';
  /** The OpenAI-compatible server, required when `generator` is `'openai'`. @default undefined */
  openai?: OpenAiOptions;
  /** Deadline of one upstream lookup, in milliseconds. @default 5000 */
  lookupTimeoutMs?: number;
  /** Deadline of one text generation, in milliseconds. @default 60000 */
  generatorTimeoutMs?: number;
  /** User-defined templates by id (53 to 72). @default {} */
  customTemplates?: Record<number, CustomTemplateOptions>;
  /** Where the current time comes from (tests inject one). @default Date.now */
  clock?: Clock;
  /** Where diagnostics go. @default a logger that writes nothing */
  logger?: Logger;
  /** Makes the DNS client of one lookup (benchmarks inject a stub). @default a node:dns Resolver on `dnsServers` */
  createDnsResolver?: () => DnsResolver;
  /** Replace the lookup service. @default the built-in one */
  lookups?: LookupService;
  /** Replace the key store. @default KeyvKeyStore on `store` */
  keys?: KeyStore;
  /** Replace the quota store. @default the counter store of `store`'s backend */
  quotas?: QuotaStore;
  /** Replace the document service. @default the built-in one on `store` */
  documents?: DocumentService;
  /** Replace the text generator. @default chosen by `generator` */
  textGenerator?: TextGenerator;
  /** Turns on the admin API and `/metrics` (CONTRACT.md §5, §7); at least 32 characters. @default undefined */
  adminToken?: string;
  /** How much the server logs: `debug`, `info`, `warn`, `error` or `silent`. @default 'info' */
  logLevel?: LogLevel;
  /** How long a stopping server lets requests in flight finish, in milliseconds. @default 10000 */
  shutdownTimeoutMs?: number;
  /** Where the core reports what it measures (lookups, upstream and generator latency, store errors). @default nothing */
  telemetry?: Telemetry;
}

/** The levels of `DOSSIER_LOG_LEVEL`. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** {@link DossierOptions} with every default filled in and every value checked. */
export type ResolvedOptions = Required<
  Pick<
    DossierOptions,
    | 'store'
    | 'cache'
    | 'dailyLimit'
    | 'dnsServers'
    | 'sslPort'
    | 'allowPrivateTargets'
    | 'generator'
    | 'lookupTimeoutMs'
    | 'generatorTimeoutMs'
    | 'customTemplates'
    | 'clock'
    | 'logger'
    | 'logLevel'
    | 'shutdownTimeoutMs'
  >
> &
  DossierOptions;

/** Settings of the HTTP server (`npm start`), read from `HOST` and `PORT`. */
export interface ServerOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host: string;
  /** Port to listen on; 0 picks a free one. @default 3000 */
  port: number;
}

const STORE_SCHEMES = ['memory:', 'sqlite:', 'redis:', 'rediss:', 'postgres:', 'postgresql:'];

/** The logger of a Dossier given none: it writes nothing (adapters skip preparing lines for it). */
export const SILENT_LOGGER: Logger = Object.freeze({ info() {}, warn() {}, error() {} });

/**
 * Fills in defaults and checks every value.
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the option, when a value is out of range.
 */
export function resolveOptions(options: DossierOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    ...options,
    store: options.store ?? 'sqlite://./data/dossier.sqlite',
    cache: options.cache ?? 'memory://',
    dailyLimit: options.dailyLimit ?? 1000,
    dnsServers: options.dnsServers ?? [],
    sslPort: options.sslPort ?? 443,
    allowPrivateTargets: options.allowPrivateTargets ?? false,
    generator: options.generator ?? 'offline',
    lookupTimeoutMs: options.lookupTimeoutMs ?? 5000,
    generatorTimeoutMs: options.generatorTimeoutMs ?? 60000,
    customTemplates: options.customTemplates ?? {},
    clock: options.clock ?? { now: () => Date.now() },
    logger: options.logger ?? SILENT_LOGGER,
    logLevel: options.logLevel ?? 'info',
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10000,
  };
  checkStoreUrl('store', resolved.store);
  checkStoreUrl('cache', resolved.cache);
  checkInteger('dailyLimit', resolved.dailyLimit, 1, 1_000_000_000);
  checkInteger('sslPort', resolved.sslPort, 1, 65535);
  checkInteger('lookupTimeoutMs', resolved.lookupTimeoutMs, 1, 600_000);
  checkInteger('generatorTimeoutMs', resolved.generatorTimeoutMs, 1, 3_600_000);
  checkInteger('shutdownTimeoutMs', resolved.shutdownTimeoutMs, 0, 3_600_000);
  if (!(LOG_LEVELS as readonly string[]).includes(resolved.logLevel)) {
    throw configError('logLevel', `must be one of ${LOG_LEVELS.join(', ')}, not "${String(resolved.logLevel)}"`);
  }
  if (resolved.adminToken !== undefined && (typeof resolved.adminToken !== 'string' || resolved.adminToken.length < 32)) {
    throw configError('adminToken', 'must be at least 32 characters long');
  }
  for (const server of resolved.dnsServers) {
    const { host } = parseHostPort('dnsServers', server, 53);
    if (
      isIP(host) === 0 &&
      !/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(host)
    ) {
      throw configError('dnsServers', `must list host[:port] entries, not "${server}"`);
    }
  }
  if (resolved.whoisServer !== undefined) parseHostPort('whoisServer', resolved.whoisServer, 43);
  if (resolved.rdapUrl !== undefined) checkHttpUrl('rdapUrl', resolved.rdapUrl);
  // Only presence is checked here; the content is verified in the background (and by `dossier.ready()`, which `dossier serve` awaits before it listens).
  for (const option of ['geoipCity', 'geoipAsn'] as const) {
    const path = resolved[option];
    if (path !== undefined && !statSync(path, { throwIfNoEntry: false })?.isFile()) {
      throw configError(option, `must be the path of a readable .mmdb file, not "${path}"`);
    }
  }
  for (const pem of resolved.sslCaCertificates ?? []) {
    try {
      new X509Certificate(pem);
    } catch {
      throw configError('sslCaCertificates', 'must list PEM certificates');
    }
  }
  if (resolved.generator !== 'offline' && resolved.generator !== 'openai') {
    throw configError('generator', `must be "offline" or "openai", not "${String(resolved.generator)}"`);
  }
  if (resolved.generator === 'openai' && resolved.textGenerator === undefined) {
    if (!resolved.openai?.baseUrl) throw configError('openai.baseUrl', 'is required when generator is "openai"');
    checkHttpUrl('openai.baseUrl', resolved.openai.baseUrl);
    if (!resolved.openai.model) throw configError('openai.model', 'is required when generator is "openai"');
  }
  if (
    typeof resolved.customTemplates !== 'object' ||
    resolved.customTemplates === null ||
    Array.isArray(resolved.customTemplates)
  ) {
    throw configError('customTemplates', 'must be an object of {"53":{"name","instruction"}}');
  }
  for (const [id, template] of Object.entries(resolved.customTemplates)) {
    const n = Number(id);
    if (!/^\d+$/.test(id) || n < 53 || n > 72)
      throw configError('customTemplates', `id ${id} is not an integer between 53 and 72`);
    const { name, instruction } = (template ?? {}) as { name?: unknown; instruction?: unknown };
    if (
      typeof name !== 'string' ||
      name.trim() === '' ||
      name.length > 128 ||
      typeof instruction !== 'string' ||
      instruction.trim() === ''
    ) {
      throw configError('customTemplates', `template ${id} needs a name (1 to 128 characters) and an instruction, both text`);
    }
  }
  return resolved;
}

/** The environment variable behind each option, so that errors name what the user actually set. */
const ENV_NAMES: Record<string, string> = {
  store: 'DOSSIER_STORE',
  cache: 'DOSSIER_CACHE',
  dailyLimit: 'DOSSIER_DAILY_LIMIT',
  dnsServers: 'DOSSIER_DNS_SERVERS',
  whoisServer: 'DOSSIER_WHOIS_SERVER',
  rdapUrl: 'DOSSIER_RDAP_URL',
  geoipCity: 'DOSSIER_GEOIP_CITY',
  geoipAsn: 'DOSSIER_GEOIP_ASN',
  sslPort: 'DOSSIER_SSL_PORT',
  sslCaCertificates: 'DOSSIER_SSL_CA_FILE',
  allowPrivateTargets: 'DOSSIER_ALLOW_PRIVATE_TARGETS',
  generator: 'DOSSIER_GENERATOR',
  'openai.baseUrl': 'DOSSIER_OPENAI_BASE_URL',
  'openai.model': 'DOSSIER_OPENAI_MODEL',
  lookupTimeoutMs: 'DOSSIER_LOOKUP_TIMEOUT_MS',
  generatorTimeoutMs: 'DOSSIER_GENERATOR_TIMEOUT_MS',
  customTemplates: 'DOSSIER_CUSTOM_TEMPLATES',
  adminToken: 'DOSSIER_ADMIN_TOKEN',
  logLevel: 'DOSSIER_LOG_LEVEL',
  shutdownTimeoutMs: 'DOSSIER_SHUTDOWN_TIMEOUT_MS',
};

/**
 * Reads the `DOSSIER_*` variables of `env` into options (unset variables stay unset, so defaults apply).
 * @throws DossierError `ERR_CONFIG_INVALID`, naming the variable, when a value cannot be parsed.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): DossierOptions {
  const options: DossierOptions = {};
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value)) throw new DossierError('ERR_CONFIG_INVALID', `${name} must be a whole number, not "${value}"`);
    return Number(value);
  };
  options.store = text('DOSSIER_STORE');
  options.cache = text('DOSSIER_CACHE');
  options.dailyLimit = int('DOSSIER_DAILY_LIMIT');
  const dnsServers = text('DOSSIER_DNS_SERVERS');
  options.dnsServers = dnsServers
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // Set, but naming no server (","): not the same as unset, which means the system's resolvers.
  if (options.dnsServers?.length === 0) options.dnsServers = [dnsServers!];
  options.whoisServer = text('DOSSIER_WHOIS_SERVER');
  options.rdapUrl = text('DOSSIER_RDAP_URL');
  options.geoipCity = text('DOSSIER_GEOIP_CITY');
  options.geoipAsn = text('DOSSIER_GEOIP_ASN');
  options.sslPort = int('DOSSIER_SSL_PORT');
  const caFile = text('DOSSIER_SSL_CA_FILE');
  if (caFile !== undefined) {
    let bundle: string;
    try {
      bundle = readFileSync(caFile, 'utf8');
    } catch {
      throw new DossierError('ERR_CONFIG_INVALID', `DOSSIER_SSL_CA_FILE cannot be read: "${caFile}"`);
    }
    options.sslCaCertificates = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (options.sslCaCertificates.length === 0) {
      throw new DossierError('ERR_CONFIG_INVALID', `DOSSIER_SSL_CA_FILE holds no PEM certificate: "${caFile}"`);
    }
  }
  const allow = text('DOSSIER_ALLOW_PRIVATE_TARGETS');
  if (allow !== undefined) {
    if (allow !== 'true' && allow !== 'false') {
      throw new DossierError('ERR_CONFIG_INVALID', `DOSSIER_ALLOW_PRIVATE_TARGETS must be "true" or "false", not "${allow}"`);
    }
    options.allowPrivateTargets = allow === 'true';
  }
  options.generator = text('DOSSIER_GENERATOR') as DossierOptions['generator'];
  const baseUrl = text('DOSSIER_OPENAI_BASE_URL');
  const model = text('DOSSIER_OPENAI_MODEL');
  if (baseUrl !== undefined || model !== undefined) {
    options.openai = { baseUrl: baseUrl ?? '', model: model ?? '', apiKey: text('DOSSIER_OPENAI_API_KEY') };
  }
  options.lookupTimeoutMs = int('DOSSIER_LOOKUP_TIMEOUT_MS');
  options.generatorTimeoutMs = int('DOSSIER_GENERATOR_TIMEOUT_MS');
  options.adminToken = text('DOSSIER_ADMIN_TOKEN');
  options.logLevel = text('DOSSIER_LOG_LEVEL') as LogLevel | undefined;
  options.shutdownTimeoutMs = int('DOSSIER_SHUTDOWN_TIMEOUT_MS');
  const templates = text('DOSSIER_CUSTOM_TEMPLATES');
  if (templates !== undefined) {
    try {
      options.customTemplates = JSON.parse(templates) as Record<number, CustomTemplateOptions>;
      // JSON's null would read as "not set"; resolveOptions checks every other shape.
      if (options.customTemplates === null) throw new TypeError('null');
    } catch {
      throw new DossierError(
        'ERR_CONFIG_INVALID',
        'DOSSIER_CUSTOM_TEMPLATES must be a JSON object of {"53":{"name","instruction"}}',
      );
    }
  }
  for (const key of Object.keys(options) as (keyof DossierOptions)[]) {
    if (options[key] === undefined) delete options[key];
  }
  try {
    resolveOptions(options);
  } catch (error) {
    // Re-word the message so that it names the variable the user set, not the option behind it.
    if (error instanceof DossierError && error.code === 'ERR_CONFIG_INVALID') {
      const option = /^(\S+)/.exec(error.message)?.[1] ?? '';
      const variable = ENV_NAMES[option];
      if (variable) throw new DossierError('ERR_CONFIG_INVALID', error.message.replace(option, variable));
    }
    throw error;
  }
  return options;
}

/**
 * Reads `HOST` and `PORT` for the HTTP server.
 * @throws DossierError `ERR_CONFIG_INVALID` when `PORT` is not a port number.
 */
export function serverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerOptions {
  const host = env.HOST?.trim() || '127.0.0.1';
  const portText = env.PORT?.trim() || '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new DossierError('ERR_CONFIG_INVALID', `PORT must be a port number (0 to 65535), not "${portText}"`);
  }
  return { host, port };
}

/**
 * Splits `host[:port]` (IPv6 in brackets) into its parts.
 * @throws DossierError `ERR_CONFIG_INVALID` naming `option` when the value is malformed.
 */
export function parseHostPort(option: string, value: string, defaultPort: number): { host: string; port: number } {
  // A bare IPv6 address: its colons are not a port.
  if (isIP(value.trim()) === 6) return { host: value.trim(), port: defaultPort };
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(value.trim());
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || port < 1 || port > 65535) {
    throw configError(option, `must be host[:port], not "${value}"`);
  }
  return { host, port };
}

function checkStoreUrl(option: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configError(option, `must be a URL (memory://, sqlite://PATH, redis://…, postgres://…), not "${value}"`);
  }
  if (!STORE_SCHEMES.includes(url.protocol)) {
    throw configError(option, `has an unknown scheme "${url.protocol}" (memory, sqlite, redis, postgres)`);
  }
  if (!value.startsWith(`${url.protocol}//`)) {
    throw configError(option, `must start with ${url.protocol}// in lower case, not "${value}"`);
  }
  if (url.protocol === 'sqlite:') {
    const path = value.slice('sqlite://'.length);
    // An empty path would be a database in memory, gone when the process ends: say so explicitly.
    if (path === '') throw configError(option, 'needs the path of its file (sqlite://PATH; memory:// keeps nothing on disk)');
    checkSqlitePath(option, path);
  }
  if ((url.protocol === 'redis:' || url.protocol === 'rediss:') && !/^\/?(\d{1,5})?$/.test(url.pathname)) {
    throw configError(option, `may end only in a database number (redis://HOST:PORT/N), not "${url.pathname}"`);
  }
}

/** The SQLite file must be creatable: its nearest existing folder is a writable directory. */
function checkSqlitePath(option: string, path: string): void {
  const stat = (p: string): Stats | undefined => {
    try {
      return statSync(p);
    } catch {
      return undefined;
    }
  };
  const file = stat(path);
  if (file !== undefined && !file.isFile()) throw configError(option, `names "${path}", which is not a file`);
  let dir = dirname(path);
  while (stat(dir) === undefined && dirname(dir) !== dir) dir = dirname(dir);
  try {
    if (!stat(dir)?.isDirectory()) throw new Error('not a directory');
    accessSync(file === undefined ? dir : path, constants.W_OK);
  } catch {
    throw configError(option, `names "${path}", which cannot be written (${dir} is not a writable folder)`);
  }
}

function checkHttpUrl(option: string, value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw configError(option, `must be an http(s) URL, not "${value}"`);
  }
}

function checkInteger(option: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw configError(option, `must be a whole number from ${min} to ${max}, not ${String(value)}`);
  }
}

function configError(option: string, problem: string): DossierError {
  return new DossierError('ERR_CONFIG_INVALID', `${option} ${problem}`);
}
