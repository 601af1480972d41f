import type { Static, TSchema } from '@sinclair/typebox';
import { DossierError } from '../errors.js';
import { compiledSchema, fieldProblems, oncePer } from '../schemas/ajv.js';
import {
  anyText,
  customTemplates,
  dnsServers,
  filePath,
  group,
  hostPort,
  httpUrl,
  nonEmptyText,
  oneOf,
  pemCertificates,
  readBoolean,
  readJsonObject,
  readList,
  readPemFile,
  readText,
  readWholeNumber,
  secret,
  storeUrl,
  wholeNumber,
  yesNo,
  type Read,
} from './checks.js';

/**
 * One setting, declared once: the environment variable that sets it, how the variable's text reads,
 * the JSON Schema of its value (the same whether it comes from the environment or from code), and its
 * default.
 */
export interface Setting {
  /** The environment variable. */
  variable: string;
  /** From the variable's text (trimmed; blank means unset) to the option's value. */
  read: (text: string) => Read<unknown>;
  /** The schema of the option's value. */
  check: TSchema;
  /** The value when neither the variable nor the option is set; none means the option stays unset. */
  default?: unknown;
}

/** How much the server logs, from the most to nothing. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** The text generators `generator` can name. */
export const GENERATORS = ['offline', 'openai'] as const;

/** The smallest length of `DOSSIER_ADMIN_TOKEN`. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/**
 * The environment of `createDossier`, as in docs/contract.md §0: each option (a dot for a nested one) with
 * its variable, reader, check and default. Everything else (the schemas, the error messages that name
 * the variable or the option) is built from this table.
 */
export const SETTINGS = {
  store: { variable: 'DOSSIER_STORE', read: readText, check: storeUrl, default: 'sqlite://./data/dossier.sqlite' },
  cache: { variable: 'DOSSIER_CACHE', read: readText, check: storeUrl, default: 'memory://' },
  dailyLimit: { variable: 'DOSSIER_DAILY_LIMIT', read: readWholeNumber, check: wholeNumber(1, 1_000_000_000), default: 1000 },
  dnsServers: { variable: 'DOSSIER_DNS_SERVERS', read: readList, check: dnsServers, default: [] },
  whoisServer: { variable: 'DOSSIER_WHOIS_SERVER', read: readText, check: hostPort(43) },
  rdapUrl: { variable: 'DOSSIER_RDAP_URL', read: readText, check: httpUrl },
  geoipCity: { variable: 'DOSSIER_GEOIP_CITY', read: readText, check: filePath('a readable .mmdb file') },
  geoipAsn: { variable: 'DOSSIER_GEOIP_ASN', read: readText, check: filePath('a readable .mmdb file') },
  sslPort: { variable: 'DOSSIER_SSL_PORT', read: readWholeNumber, check: wholeNumber(1, 65535), default: 443 },
  sslCaCertificates: { variable: 'DOSSIER_SSL_CA_FILE', read: readPemFile, check: pemCertificates },
  allowPrivateTargets: {
    variable: 'DOSSIER_ALLOW_PRIVATE_TARGETS',
    read: readBoolean,
    check: yesNo,
    default: false,
  },
  generator: { variable: 'DOSSIER_GENERATOR', read: readText, check: oneOf(GENERATORS), default: 'offline' },
  'openai.baseUrl': { variable: 'DOSSIER_OPENAI_BASE_URL', read: readText, check: httpUrl },
  'openai.apiKey': { variable: 'DOSSIER_OPENAI_API_KEY', read: readText, check: anyText },
  'openai.model': { variable: 'DOSSIER_OPENAI_MODEL', read: readText, check: nonEmptyText },
  lookupTimeoutMs: {
    variable: 'DOSSIER_LOOKUP_TIMEOUT_MS',
    read: readWholeNumber,
    check: wholeNumber(1, 600_000),
    default: 5000,
  },
  generatorTimeoutMs: {
    variable: 'DOSSIER_GENERATOR_TIMEOUT_MS',
    read: readWholeNumber,
    check: wholeNumber(1, 3_600_000),
    default: 60_000,
  },
  customTemplates: { variable: 'DOSSIER_CUSTOM_TEMPLATES', read: readJsonObject, check: customTemplates, default: {} },
  adminToken: { variable: 'DOSSIER_ADMIN_TOKEN', read: readText, check: secret(ADMIN_TOKEN_MIN_LENGTH) },
  storeTimeoutMs: { variable: 'DOSSIER_STORE_TIMEOUT_MS', read: readWholeNumber, check: wholeNumber(1, 600_000), default: 2000 },
  logLevel: { variable: 'DOSSIER_LOG_LEVEL', read: readText, check: oneOf(LOG_LEVELS), default: 'info' },
  shutdownTimeoutMs: {
    variable: 'DOSSIER_SHUTDOWN_TIMEOUT_MS',
    read: readWholeNumber,
    // 0 is meaningful here: close the connections at once.
    check: wholeNumber(0, 3_600_000),
    default: 10_000,
  },
  watchesPerKey: { variable: 'DOSSIER_WATCHES_PER_KEY', read: readWholeNumber, check: wholeNumber(1, 1_000_000), default: 100 },
  watchConcurrency: {
    variable: 'DOSSIER_WATCH_CONCURRENCY',
    read: readWholeNumber,
    check: wholeNumber(1, 1000),
    default: 32,
  },
  workers: {
    variable: 'DOSSIER_WORKERS',
    read: readBoolean,
    check: yesNo,
    default: true,
  },
} satisfies Record<string, Setting>;

/** How an error names a setting: by its option (given in code) or by its variable (read from the environment). */
export type Naming = 'option' | 'variable';

/** The options that a table of settings declares, typed by their schemas: `openai.model` is in `openai`. */
export type SettingValues<S extends Record<string, Setting>> = {
  [K in keyof S as K extends `${string}.${string}` ? never : K]: Static<S[K]['check']>;
};

/** The options of a table of settings that have a default. */
export type Defaulted<S extends Record<string, Setting>> = {
  [K in keyof S]: S[K] extends { default: unknown } ? K : never;
}[keyof S];

/** Options checked against a table of settings: what was given, and every default filled in. */
export type Checked<S extends Record<string, Setting>, O> = O & Pick<SettingValues<S>, Defaulted<S> & keyof SettingValues<S>>;

/** A problem with one setting: where it is (an option's path, or a variable) and the sentence's end. */
export interface SettingProblem {
  path: string[];
  message: string;
}

/** The JSON Schema of options given in code: each setting's own, nested options grouped, anything else let through. */
const optionsSchema = oncePer((settings: Record<string, Setting>): TSchema => {
  const properties: Record<string, TSchema> = {};
  const groups: Record<string, Record<string, TSchema>> = {};
  for (const [option, setting] of Object.entries(settings)) {
    const [name, member] = option.split('.') as [string, string | undefined];
    if (member === undefined) properties[name] = setting.check;
    else (groups[name] ??= {})[member] = setting.check;
  }
  for (const [name, members] of Object.entries(groups)) properties[name] = group(members);
  return group(properties);
});

/**
 * `options` with every default of `settings` filled in and every value checked (a default goes through
 * its check too: the default SQLite folder must be writable); anything else (ports, clock, logger)
 * passed through untouched. `crossCheck` sees the checked whole.
 * @throws DossierError `ERR_CONFIG_INVALID`, each sentence starting with the name of the setting at
 *   fault: its option or its variable, as `naming` says.
 */
export function checkOptions<S extends Record<string, Setting>, O extends object>(
  settings: S,
  options: O,
  naming: Naming,
  crossCheck: CrossCheck = () => [],
): Checked<S, O> {
  const { filled, problems } = problemsOf(settings, options, crossCheck);
  if (problems.length > 0) throw configError(problems, settings, naming);
  // The schema has just said so.
  return filled as Checked<S, O>;
}

/** The checks that involve more than one setting, on values that each passed their own check. */
type CrossCheck = (options: Record<string, unknown>) => SettingProblem[];

/** `options` with the defaults of `settings` filled in, and what is wrong with them. */
function problemsOf(
  settings: Record<string, Setting>,
  options: object,
  crossCheck: CrossCheck,
): { filled: Record<string, unknown>; problems: SettingProblem[] } {
  // The settings first, in the table's order, then whatever else was given, as it was given.
  const given = options as Record<string, unknown>;
  const filled: Record<string, unknown> = {};
  for (const [option, setting] of Object.entries(settings)) {
    const name = option.split('.')[0]!;
    if (name in filled) continue;
    const value = given[name] !== undefined || name !== option ? given[name] : structuredClone(setting.default);
    if (value !== undefined) filled[name] = value;
  }
  for (const [name, value] of Object.entries(given)) if (!(name in filled)) filled[name] = value;
  const validate = compiledSchema(optionsSchema(settings));
  const errors = validate(filled) ? [] : (validate.errors ?? []);
  // The cross-checks read the values as their types say: only once every value has its type.
  const typed = errors.every((error) => error.keyword !== 'type');
  const problems = [
    ...fieldProblems(errors).map(({ field, phrase }) => ({ path: field, message: phrase ?? 'is invalid' })),
    ...(typed ? crossCheck(filled) : []),
  ];
  return { filled, problems };
}

/**
 * The options that the variables of `settings` in `env` set, nested, and nothing else (a blank or absent
 * variable is unset, so that its default applies), each value read and checked.
 * @throws DossierError `ERR_CONFIG_INVALID` naming every bad variable at once, in the table's order:
 *   those whose text cannot be read and those whose value is out of range alike.
 */
export function readEnvironment<S extends Record<string, Setting>>(
  settings: S,
  env: NodeJS.ProcessEnv,
  crossCheck: CrossCheck = () => [],
): Partial<SettingValues<S>> {
  const options: Record<string, unknown> = {};
  const problems: SettingProblem[] = [];
  for (const [option, setting] of Object.entries(settings)) {
    const text = env[setting.variable]?.trim();
    if (!text) continue;
    const read = setting.read(text);
    if ('problem' in read) {
      problems.push({ path: [setting.variable], message: read.problem });
      continue;
    }
    const [name, member] = option.split('.') as [string, string | undefined];
    if (member === undefined) options[name] = read.value;
    else ((options[name] ??= {}) as Record<string, unknown>)[member] = read.value;
  }
  // The values read are checked even when others could not be read: every bad variable is named.
  problems.push(...problemsOf(settings, options, crossCheck).problems);
  if (problems.length > 0) throw configError(inTableOrder(problems, settings), settings, 'variable');
  // Each value is what its reader gives, and passed its check.
  return options as Partial<SettingValues<S>>;
}

/** `problems` in the order of the settings they are about. */
function inTableOrder(problems: SettingProblem[], settings: Record<string, Setting>): SettingProblem[] {
  const order = Object.entries(settings).flatMap(([option, setting]) => [setting.variable, option.split('.')[0]!]);
  const rank = ({ path }: SettingProblem): number => (order.includes(path[0]!) ? order.indexOf(path[0]!) : order.length);
  return problems.sort((a, b) => rank(a) - rank(b));
}

/** One `ERR_CONFIG_INVALID` whose sentences each start with the name of the setting at fault. */
function configError(problems: SettingProblem[], settings: Record<string, Setting>, naming: Naming): DossierError {
  const sentences = problems.map(({ path, message }) => `${nameOf(path, settings, naming)} ${message}`);
  return new DossierError('ERR_CONFIG_INVALID', [...new Set(sentences)].join('; '));
}

/** The setting a problem's path points into (the longest option that starts it), by the name `naming` wants. */
function nameOf(path: string[], settings: Record<string, Setting>, naming: Naming): string {
  const byVariable = Object.values(settings).find((setting) => setting.variable === path[0]);
  if (byVariable !== undefined) return byVariable.variable;
  for (let length = path.length; length > 0; length -= 1) {
    const option = path.slice(0, length).join('.');
    const setting = settings[option];
    if (setting !== undefined) return naming === 'variable' ? setting.variable : option;
  }
  return path.join('.') || 'the configuration';
}
