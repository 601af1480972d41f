import { z } from 'zod';
import { DossierError } from '../errors.js';
import {
  anyText,
  customTemplates,
  dnsServers,
  filePath,
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
} from './checks.js';

/**
 * One setting, declared once: the environment variable that sets it, how the variable's text reads,
 * the check of its value (the same whether it comes from the environment or from code), and its default.
 */
export interface Setting {
  /** The environment variable. */
  variable: string;
  /** From the variable's text (trimmed; blank means unset) to the option's value. */
  read: z.ZodType<unknown, string>;
  /** The check of the option's value. */
  check: z.ZodType;
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
 * The environment of `createDossier`, as in CONTRACT.md §0: each option (a dot for a nested one) with
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
    check: z.boolean({ error: 'must be true or false' }),
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
} satisfies Record<string, Setting>;

/** The HTTP server's settings (`dossier serve`, `npm start`). */
export const SERVER_SETTINGS = {
  host: { variable: 'HOST', read: readText, check: nonEmptyText, default: '127.0.0.1' },
  port: { variable: 'PORT', read: readWholeNumber, check: wholeNumber(0, 65535), default: 3000 },
  trustProxy: {
    variable: 'DOSSIER_TRUST_PROXY',
    read: readBoolean,
    check: z.boolean({ error: 'must be true or false' }),
    default: false,
  },
} satisfies Record<string, Setting>;

/** How an error names a setting: by its option (given in code) or by its variable (read from the environment). */
export type Naming = 'option' | 'variable';

/**
 * The schema of options given in code: every setting's check and default, nested options grouped,
 * anything else (ports, clock, logger) passed through untouched; `crossCheck` sees the checked whole.
 */
export function optionsSchema(
  settings: Record<string, Setting>,
  crossCheck: (options: Record<string, unknown>, ctx: z.RefinementCtx) => void = () => {},
): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  const groups: Record<string, Record<string, z.ZodType>> = {};
  for (const [option, setting] of Object.entries(settings)) {
    // prefault, not default: a default goes through the check too (the default SQLite folder must be writable).
    const field = setting.default === undefined ? setting.check.optional() : setting.check.prefault(setting.default);
    const [group, member] = option.split('.') as [string, string | undefined];
    if (member === undefined) shape[option] = field;
    else (groups[group] ??= {})[member] = field;
  }
  for (const [group, members] of Object.entries(groups)) {
    shape[group] = z.object(members, { error: 'must be an object' }).optional();
  }
  return z.looseObject(shape).superRefine(crossCheck);
}

/**
 * The schema of the environment: each setting's variable, blank or absent meaning unset, read into
 * the value of its option. Its output holds the options that were set, nested, and nothing else.
 */
export function environmentSchema(settings: Record<string, Setting>): z.ZodType<Record<string, unknown>, NodeJS.ProcessEnv> {
  const unsetWhenBlank = z
    .string()
    .optional()
    .transform((text) => (text?.trim() ? text.trim() : undefined));
  const shape: Record<string, z.ZodType> = {};
  for (const setting of Object.values(settings)) shape[setting.variable] = unsetWhenBlank.pipe(setting.read.optional());
  return z.object(shape).transform((variables) => {
    const options: Record<string, unknown> = {};
    for (const [option, setting] of Object.entries(settings)) {
      const value = variables[setting.variable];
      if (value === undefined) continue;
      const [group, member] = option.split('.') as [string, string | undefined];
      if (member === undefined) options[option] = value;
      else ((options[group] ??= {}) as Record<string, unknown>)[member] = value;
    }
    return options;
  }) as z.ZodType<Record<string, unknown>, NodeJS.ProcessEnv>;
}

/**
 * Parses `input` with `schema`, or throws one `ERR_CONFIG_INVALID` whose sentences each start with
 * the name of the setting at fault: its option or its variable, as `naming` says.
 */
export function parseSettings<T, I>(schema: z.ZodType<T, I>, input: I, settings: Record<string, Setting>, naming: Naming): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const sentences = result.error.issues.map((issue) => `${nameOf(issue.path, settings, naming)} ${issue.message}`);
  throw new DossierError('ERR_CONFIG_INVALID', [...new Set(sentences)].join('; '));
}

/** The setting an issue's path points into (the longest option that starts it), by the name `naming` wants. */
function nameOf(path: PropertyKey[], settings: Record<string, Setting>, naming: Naming): string {
  const keys = path.map(String);
  const byVariable = Object.values(settings).find((setting) => setting.variable === keys[0]);
  if (byVariable !== undefined) return byVariable.variable;
  for (let length = keys.length; length > 0; length -= 1) {
    const option = keys.slice(0, length).join('.');
    const setting = settings[option];
    if (setting !== undefined) return naming === 'variable' ? setting.variable : option;
  }
  return keys.join('.') || 'the configuration';
}
