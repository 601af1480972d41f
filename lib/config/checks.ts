import { X509Certificate } from 'node:crypto';
import { accessSync, constants, readFileSync, statSync, type Stats } from 'node:fs';
import { isIP } from 'node:net';
import { dirname } from 'node:path';
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import type { CustomTemplateOptions } from '../documents/templates.js';
import { parseHostPort } from '../lookup/net/host-port.js';
import { defineCheck } from '../schemas/ajv.js';
import { STORE_SCHEMES, storeScheme } from '../stores/schemes.js';

// The checks of the settings' values, as JSON Schema (TypeBox), and the readers that turn a variable's
// text into a value. Each message completes a sentence that starts with the name of the option or
// variable (see settings.ts). A schema's `message` is its sentence, or one per JSON Schema keyword; in
// it, `{input}` stands for the value refused and `{length}` for its length (lib/schemas/ajv.ts, fieldProblems).

/** The schemes a store URL may have, as its message lists them. */
const SCHEME_NAMES = Object.keys(STORE_SCHEMES)
  .map((scheme) => scheme.slice(0, -1))
  .join(', ');

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number) {
  return Type.Integer({ minimum: min, maximum: max, message: `must be a whole number from ${min} to ${max}, not {input}` });
}

/** One of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): TUnsafe<T[number]> {
  const quoted = values.map((value) => `"${value}"`);
  const choices = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return Type.Unsafe<T[number]>({ enum: [...values], message: `must be ${choices}, not "{input}"` });
}

/** Text of at least `min` characters (a secret's content is never repeated in the message). */
export function secret(min: number) {
  const message = { type: 'must be text', minLength: `must be at least ${min} characters long, not {length}` };
  return Type.String({ minLength: min, message });
}

/** `true` or `false`. */
export const yesNo = Type.Boolean({ message: 'must be true or false' });

/** Any text. */
export const anyText = Type.String({ message: 'must be text' });

const NON_EMPTY = defineCheck('nonEmptyText', (value) => typeof value !== 'string' || value.trim() !== '');

/** Text that is not blank. */
export const nonEmptyText = Type.String({ check: NON_EMPTY, message: { type: 'must be text', check: 'must not be empty' } });

const HTTP_URL = defineCheck(
  'httpUrl',
  (value) => typeof value !== 'string' || /^https?:$/.test(URL.parse(value)?.protocol ?? ''),
);

/** An http(s) URL. */
export const httpUrl = Type.String({
  check: HTTP_URL,
  message: { type: 'must be an http(s) URL', check: 'must be an http(s) URL, not "{input}"' },
});

const STORE_URL = defineCheck('storeUrl', (value) => {
  const problem = typeof value === 'string' ? storeUrlProblem(value) : undefined;
  return problem === undefined ? true : [problem];
});

/** A store URL (memory://, sqlite://PATH with a writable folder, redis://…, postgres://…, mysql://…/DATABASE). */
export const storeUrl = Type.String({ check: STORE_URL, message: { type: 'must be a store URL' } });

/** `host[:port]` (`defaultPort` when none is written); a DNS server's host must also be an IP address or a DNS name. */
export function hostPort(defaultPort: number, kind: 'any' | 'dns' = 'any') {
  const check = defineCheck(`hostPort:${defaultPort}:${kind}`, (value) => {
    if (typeof value !== 'string') return true;
    const parsed = parseHostPort(value, defaultPort);
    return parsed !== null && (kind === 'any' || isIP(parsed.host) !== 0 || DNS_NAME.test(parsed.host));
  });
  const expected = kind === 'dns' ? 'must list host[:port] entries' : 'must be host[:port]';
  return Type.String({ check, message: { type: 'must be host[:port]', check: `${expected}, not "{input}"` } });
}

/** A list of DNS servers, each `host[:port]` whose host is an IP address or a DNS name. */
export const dnsServers = Type.Array(hostPort(53, 'dns'), { message: { type: 'must be a list of host[:port] entries' } });

const FILE = defineCheck(
  'file',
  (value) => typeof value !== 'string' || statSync(value, { throwIfNoEntry: false })?.isFile() === true,
);

/** The path of an existing file (its content is checked on first use). */
export function filePath(what: string) {
  return Type.String({
    check: FILE,
    message: { type: `must be the path of ${what}`, check: `must be the path of ${what}, not "{input}"` },
  });
}

const PEM = defineCheck('pemCertificates', (value) => !Array.isArray(value) || value.every(isCertificate));

/** PEM certificates that Node can read. */
export const pemCertificates = Type.Array(Type.String(), { check: PEM, message: 'must list PEM certificates' });

function isCertificate(pem: unknown): boolean {
  try {
    new X509Certificate(pem as string);
    return true;
  } catch {
    return false;
  }
}

const CUSTOM_TEMPLATES = defineCheck('customTemplates', (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  const problems: string[] = [];
  for (const [id, template] of Object.entries(value)) {
    const n = Number(id);
    if (!/^\d+$/.test(id) || n < 53 || n > 72) {
      problems.push(`id ${id} is not an integer between 53 and 72`);
      continue;
    }
    const { name, instruction } = (template ?? {}) as { name?: unknown; instruction?: unknown };
    if (
      typeof name !== 'string' ||
      name.trim() === '' ||
      name.length > 128 ||
      typeof instruction !== 'string' ||
      instruction.trim() === ''
    ) {
      problems.push(`template ${id} needs a name (1 to 128 characters) and an instruction, both text`);
    }
  }
  return problems.length === 0 || problems;
});

/** User-defined templates by id, 53 to 72, each with a name (1 to 128 characters) and an instruction. */
export const customTemplates = Type.Unsafe<Record<number, CustomTemplateOptions>>({
  type: 'object',
  check: CUSTOM_TEMPLATES,
  message: { type: 'must be an object of {"53":{"name","instruction"}}' },
});

/** A group of nested options (`openai`): an object of `members`, each optional. */
export function group(members: Record<string, TSchema>) {
  const optional = Object.fromEntries(Object.entries(members).map(([name, schema]) => [name, Type.Optional(schema)]));
  return Type.Object(optional, { message: { type: 'must be an object' } });
}

// Readers: a variable's text (trimmed, never empty) to the value of its option, or the problem.

/** A variable's value, or what is wrong with its text. */
export type Read<T> = { value: T } | { problem: string };

/** The text as it is. */
export function readText(text: string): Read<string> {
  return { value: text };
}

/** A whole number written in digits, with a sign or not (its check says which are allowed, and says so). */
export function readWholeNumber(text: string): Read<number> {
  return /^[-+]?\d+$/.test(text) ? { value: Number(text) } : { problem: `must be a whole number, not "${text}"` };
}

/** `true` or `false`. */
export function readBoolean(text: string): Read<boolean> {
  if (text === 'true' || text === 'false') return { value: text === 'true' };
  return { problem: `must be "true" or "false", not "${text}"` };
}

/** A comma list, naming at least one entry. */
export function readList(text: string): Read<string[]> {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Set, but naming nothing (","): not the same as unset, which means the default.
  return entries.length > 0 ? { value: entries } : { problem: `must list host[:port] entries, not "${text}"` };
}

/** A JSON object (its content is checked by the option's own check). */
export function readJsonObject(text: string): Read<unknown> {
  try {
    const value: unknown = JSON.parse(text);
    // JSON's null would read as "not set".
    if (value !== null) return { value };
  } catch {
    // reported below
  }
  return { problem: 'must be a JSON object of {"53":{"name","instruction"}}' };
}

/** The PEM certificates of a bundle file. */
export function readPemFile(path: string): Read<string[]> {
  let bundle: string;
  try {
    bundle = readFileSync(path, 'utf8');
  } catch {
    return { problem: `cannot be read: "${path}"` };
  }
  const certificates = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  return certificates !== null ? { value: certificates } : { problem: `holds no PEM certificate: "${path}"` };
}

function storeUrlProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (url === null) return `must be a URL (memory://, sqlite://PATH, redis://…, postgres://…, mysql://…), not "${value}"`;
  const scheme = storeScheme(value);
  if (scheme === undefined) return `has an unknown scheme "${url.protocol}" (${SCHEME_NAMES})`;
  if (!value.startsWith(`${url.protocol}//`)) return `must start with ${url.protocol}// in lower case, not "${value}"`;
  if (url.protocol === 'sqlite:') {
    const path = value.slice('sqlite://'.length);
    // An empty path would be a database in memory, gone when the process ends: say so explicitly.
    if (path === '') return 'needs the path of its file (sqlite://PATH; memory:// keeps nothing on disk)';
    return sqlitePathProblem(path);
  }
  const { backend } = STORE_SCHEMES[scheme];
  if (backend === 'redis' && !/^\/?(\d{1,5})?$/.test(url.pathname)) {
    return `may end only in a database number (redis://HOST:PORT/N), not "${url.pathname}"`;
  }
  if (backend === 'mysql' && !/^\/[^/]+$/.test(url.pathname)) {
    return `must name its database (${url.protocol}//USER:PASSWORD@HOST:3306/DATABASE), not "${url.pathname}"`;
  }
  return undefined;
}

/** The SQLite file must be creatable: its nearest existing folder is a writable directory. */
function sqlitePathProblem(path: string): string | undefined {
  const stat = (p: string): Stats | undefined => {
    try {
      return statSync(p);
    } catch {
      return undefined;
    }
  };
  const file = stat(path);
  if (file !== undefined && !file.isFile()) return `names "${path}", which is not a file`;
  let dir = dirname(path);
  while (stat(dir) === undefined && dirname(dir) !== dir) dir = dirname(dir);
  try {
    if (!stat(dir)?.isDirectory()) throw new Error('not a directory');
    accessSync(file === undefined ? dir : path, constants.W_OK);
  } catch {
    return `names "${path}", which cannot be written (${dir} is not a writable folder)`;
  }
  return undefined;
}
