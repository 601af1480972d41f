import { X509Certificate } from 'node:crypto';
import { accessSync, constants, readFileSync, statSync, type Stats } from 'node:fs';
import { isIP } from 'node:net';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { CustomTemplateOptions } from '../documents/templates.js';
import { parseHostPort } from '../lookup/net/host-port.js';

// The checks of the settings' values, and the readers that turn a variable's text into a value. Each
// message completes a sentence that starts with the name of the option or variable (see settings.ts).

const STORE_SCHEMES = ['memory:', 'sqlite:', 'redis:', 'rediss:', 'postgres:', 'postgresql:'];

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number): z.ZodType<number> {
  const error = (issue: { input: unknown }): string => `must be a whole number from ${min} to ${max}, not ${String(issue.input)}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/** One of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<T[number]> {
  const quoted = values.map((value) => `"${value}"`);
  const choices = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return z.enum(values, { error: (issue) => `must be ${choices}, not "${String(issue.input)}"` });
}

/** Text of at least `min` characters (a secret's content is never repeated in the message). */
export function secret(min: number): z.ZodType<string> {
  return z
    .string({ error: 'must be text' })
    .min(min, { error: (issue) => `must be at least ${min} characters long, not ${String((issue.input as string).length)}` });
}

/** Any text. */
export const anyText: z.ZodType<string> = z.string({ error: 'must be text' });

/** Text that is not blank. */
export const nonEmptyText: z.ZodType<string> = anyText.refine((value) => value.trim() !== '', { error: 'must not be empty' });

/** An http(s) URL. */
export const httpUrl: z.ZodType<string> = z
  .string({ error: 'must be an http(s) URL' })
  .refine((value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ''), {
    error: (issue) => `must be an http(s) URL, not "${String(issue.input)}"`,
  });

/** A store URL (memory://, sqlite://PATH with a writable folder, redis://…, postgres://…). */
export const storeUrl: z.ZodType<string> = z.string({ error: 'must be a store URL' }).superRefine((value, ctx) => {
  const problem = storeUrlProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A list of DNS servers, each `host[:port]` whose host is an IP address or a DNS name. */
export const dnsServers: z.ZodType<string[]> = z.array(hostPort(53, 'dns'), { error: 'must be a list of host[:port] entries' });

/** `host[:port]`; a DNS server's host must also be an IP address or a DNS name. */
export function hostPort(defaultPort: number, kind: 'any' | 'dns' = 'any'): z.ZodType<string> {
  return z.string({ error: 'must be host[:port]' }).superRefine((value, ctx) => {
    const parsed = parseHostPort(value, defaultPort);
    if (parsed === null || (kind === 'dns' && isIP(parsed.host) === 0 && !DNS_NAME.test(parsed.host))) {
      const expected = kind === 'dns' ? 'must list host[:port] entries' : 'must be host[:port]';
      ctx.addIssue({ code: 'custom', message: `${expected}, not "${value}"` });
    }
  });
}

/** The path of an existing file (its content is checked on first use). */
export function filePath(what: string): z.ZodType<string> {
  return z
    .string({ error: `must be the path of ${what}` })
    .refine((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true, {
      error: (issue) => `must be the path of ${what}, not "${String(issue.input)}"`,
    });
}

/** PEM certificates that Node can read. */
export const pemCertificates: z.ZodType<string[]> = z
  .array(z.string(), { error: 'must list PEM certificates' })
  .refine((pems) => pems.every(isCertificate), { error: 'must list PEM certificates' });

function isCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/** User-defined templates by id, 53 to 72, each with a name (1 to 128 characters) and an instruction. */
export const customTemplates: z.ZodType<Record<number, CustomTemplateOptions>> = z
  .custom<Record<number, CustomTemplateOptions>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    { error: 'must be an object of {"53":{"name","instruction"}}' },
  )
  .superRefine((value, ctx) => {
    for (const [id, template] of Object.entries(value)) {
      const n = Number(id);
      if (!/^\d+$/.test(id) || n < 53 || n > 72) {
        ctx.addIssue({ code: 'custom', message: `id ${id} is not an integer between 53 and 72` });
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
        const message = `template ${id} needs a name (1 to 128 characters) and an instruction, both text`;
        ctx.issues.push({ code: 'custom', input: template, message });
      }
    }
  });

// Readers: a variable's text (trimmed, never empty) to the value of its option.

/** The text as it is. */
export const readText: z.ZodType<string, string> = z.string();

/** A whole number written in digits. */
export const readWholeNumber: z.ZodType<number, string> = z.string().transform((text, ctx) => {
  if (/^\d+$/.test(text)) return Number(text);
  ctx.addIssue({ code: 'custom', message: `must be a whole number, not "${text}"` });
  return z.NEVER;
});

/** `true` or `false`. */
export const readBoolean: z.ZodType<boolean, string> = z.string().transform((text, ctx) => {
  if (text === 'true' || text === 'false') return text === 'true';
  ctx.addIssue({ code: 'custom', message: `must be "true" or "false", not "${text}"` });
  return z.NEVER;
});

/** A comma list, naming at least one entry. */
export const readList: z.ZodType<string[], string> = z.string().transform((text, ctx) => {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Set, but naming nothing (","): not the same as unset, which means the default.
  if (entries.length > 0) return entries;
  ctx.addIssue({ code: 'custom', message: `must list host[:port] entries, not "${text}"` });
  return z.NEVER;
});

/** A JSON object (its content is checked by the option's own check). */
export const readJsonObject: z.ZodType<Record<number, CustomTemplateOptions>, string> = z.string().transform((text, ctx) => {
  try {
    const value: unknown = JSON.parse(text);
    // JSON's null would read as "not set".
    if (value !== null) return value as Record<number, CustomTemplateOptions>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'must be a JSON object of {"53":{"name","instruction"}}' });
  return z.NEVER;
});

/** The PEM certificates of a bundle file. */
export const readPemFile: z.ZodType<string[], string> = z.string().transform((path, ctx) => {
  let bundle: string;
  try {
    bundle = readFileSync(path, 'utf8');
  } catch {
    ctx.addIssue({ code: 'custom', message: `cannot be read: "${path}"` });
    return z.NEVER;
  }
  const certificates = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (certificates !== null) return certificates;
  ctx.addIssue({ code: 'custom', message: `holds no PEM certificate: "${path}"` });
  return z.NEVER;
});

function storeUrlProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (url === null) return `must be a URL (memory://, sqlite://PATH, redis://…, postgres://…), not "${value}"`;
  if (!STORE_SCHEMES.includes(url.protocol)) {
    return `has an unknown scheme "${url.protocol}" (memory, sqlite, redis, postgres)`;
  }
  if (!value.startsWith(`${url.protocol}//`)) return `must start with ${url.protocol}// in lower case, not "${value}"`;
  if (url.protocol === 'sqlite:') {
    const path = value.slice('sqlite://'.length);
    // An empty path would be a database in memory, gone when the process ends: say so explicitly.
    if (path === '') return 'needs the path of its file (sqlite://PATH; memory:// keeps nothing on disk)';
    return sqlitePathProblem(path);
  }
  if ((url.protocol === 'redis:' || url.protocol === 'rediss:') && !/^\/?(\d{1,5})?$/.test(url.pathname)) {
    return `may end only in a database number (redis://HOST:PORT/N), not "${url.pathname}"`;
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
