import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { WhoisData } from '../../adapters/http/schemas/shapes.js';
import { projectRoot } from './paths.js';

/**
 * weppos/whois-parser's fixtures (MIT, see its LICENSE.txt): real answers of about 250 whois servers,
 * each beside the `.expected` file that says what that parser reads from it.
 */
export const WHOIS_CORPUS = join(projectRoot(), 'test', 'fixtures', 'whois-corpus', 'responses');

/** A property of an `.expected` file: a value, `null` (`== nil`, `== []`), or not published by the registry. */
export type Expected<T> = T | null | 'unsupported';

/** What an `.expected` file says, for the fields Dossier reads. */
export interface CorpusExpectation {
  domain: string | null;
  available: boolean | null;
  /** `%TIME{…}` as written: the registry's wall time, with the zone when the fixture names one. */
  created: Expected<string>;
  updated: Expected<string>;
  expires: Expected<string>;
  /** The registrar's organization, else its name (the name is sometimes only the registry's handle). */
  registrar: Expected<{ name: string | null; organization: string | null }>;
  nameservers: Expected<string[]>;
  /**
   * The first registrant contact's organization (`#registrant_contacts`, `%s[0].organization`): `''`
   * is whois-parser's "none", read as null; undefined where the fixture says nothing of it.
   */
  registrantOrganization?: string | null;
}

/** One answer of the corpus. */
export interface CorpusCase {
  /** `server/tld/case`, the path under {@link WHOIS_CORPUS} without `.txt`. */
  id: string;
  server: string;
  /** The TLD folder, when the fixture sits in one (registrars' fixtures do not). */
  tld: string | null;
  /** `status_registered`, `status_available`, `response_throttled`, `property_…`. */
  name: string;
  bytes: Buffer;
  expected: CorpusExpectation | null;
}

/** Every answer of the corpus, in a stable order. */
export function loadWhoisCorpus(root: string = WHOIS_CORPUS): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.txt')) cases.push(corpusCase(root, path));
    }
  };
  walk(root);
  return cases;
}

function corpusCase(root: string, path: string): CorpusCase {
  const parts = relative(root, path).split(sep);
  const name = parts.at(-1)!.replace(/\.txt$/, '');
  let expected: CorpusExpectation | null = null;
  try {
    expected = parseExpectation(readFileSync(path.replace(/\.txt$/, '.expected'), 'utf8'));
  } catch {
    // A few fixtures have no expectations.
  }
  return {
    id: [...parts.slice(0, -1), name].join('/'),
    server: parts[0]!,
    tld: parts.length === 3 ? parts[1]! : null,
    name,
    bytes: readFileSync(path),
    expected,
  };
}

/** Reads the properties of an `.expected` file that Dossier has fields for. */
export function parseExpectation(text: string): CorpusExpectation {
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const header = /^#(\S+)/.exec(line);
    if (header) blocks.set(header[1]!, (current = []));
    else if (current !== null && /^\s+%s/.test(line)) current.push(line.trim());
  }
  const unsupported = (lines: string[]): boolean => lines.some((line) => line.includes('%ERROR{AttributeNotSupported}'));
  const string = (line: string | undefined): string | null => {
    const match = line === undefined ? null : /==\s*"((?:[^"\\]|\\.)*)"/.exec(line);
    return match ? JSON.parse(`"${match[1]!}"`) : null;
  };
  const time = (property: string): Expected<string> => {
    const lines = blocks.get(property);
    if (lines === undefined) return null;
    if (unsupported(lines)) return 'unsupported';
    const match = lines.map((line) => /%TIME\{([^}]*)\}/.exec(line)).find((found) => found !== null);
    return match ? match[1]!.trim() : null;
  };
  const boolean = (property: string): boolean | null => {
    const line = blocks.get(property)?.find((candidate) => /^%s ==/.test(candidate));
    return line === undefined ? null : /== true/.test(line);
  };

  const registrarLines = blocks.get('registrar');
  let registrar: CorpusExpectation['registrar'] = null;
  if (registrarLines !== undefined && unsupported(registrarLines)) registrar = 'unsupported';
  else if (registrarLines !== undefined && !registrarLines.some((line) => /^%s == nil/.test(line))) {
    const name = string(registrarLines.find((line) => line.startsWith('%s.name')));
    const organization = string(registrarLines.find((line) => line.startsWith('%s.organization')));
    registrar = name === null && organization === null ? null : { name, organization };
  }

  const nameserverLines = blocks.get('nameservers');
  let nameservers: CorpusExpectation['nameservers'] = null;
  if (nameserverLines !== undefined && unsupported(nameserverLines)) nameservers = 'unsupported';
  else if (nameserverLines !== undefined) {
    nameservers = nameserverLines.flatMap((line) => (/^%s\[\d+\]\.name/.test(line) ? [string(line)!] : []));
  }

  const registrantLine = blocks.get('registrant_contacts')?.find((line) => line.startsWith('%s[0].organization'));
  const registrantOrganization = registrantLine === undefined ? undefined : string(registrantLine) || null;

  return {
    registrantOrganization,
    domain: string(blocks.get('domain')?.find((line) => line.startsWith('%s =='))),
    available: boolean('available?'),
    created: time('created_on'),
    updated: time('updated_on'),
    expires: time('expires_on'),
    registrar,
    nameservers,
  };
}

/** The fields scored on an answer about a registered domain; a free name scores `not_found` alone. */
export const SCORED_FIELDS = ['registered', 'registrar', 'created', 'updated', 'expires', 'name_servers', 'not_found'] as const;
export type ScoredField = (typeof SCORED_FIELDS)[number];

/** What a parser read from one answer, in Dossier's terms; null when it gave nothing (or failed). */
export type Reading = Pick<WhoisData, 'registered' | 'registrar' | 'created_at' | 'updated_at' | 'expires_at' | 'name_servers'>;

/** Which fields a reading got right; `reading` null is a lookup that failed (a 502). */
export function scoreReading(expected: CorpusExpectation, reading: Reading | null, text: string): Map<ScoredField, boolean> {
  const score = new Map<ScoredField, boolean>();
  if (expected.available === true) {
    score.set('not_found', reading !== null && !reading.registered);
    return score;
  }
  score.set('registered', reading?.registered === true);
  const got = reading?.registered === true ? reading : null;
  const want = expected.registrar === 'unsupported' || expected.registrar === null ? null : expected.registrar;
  const wantName = want === null ? null : (want.organization ?? want.name);
  score.set('registrar', sameText(got?.registrar ?? null, wantName));
  score.set('created', sameInstant(got?.created_at ?? null, expected.created, text));
  score.set('updated', sameInstant(got?.updated_at ?? null, expected.updated, text));
  score.set('expires', sameInstant(got?.expires_at ?? null, expected.expires, text));
  const servers = expected.nameservers === 'unsupported' || expected.nameservers === null ? [] : expected.nameservers;
  const gotServers = got?.name_servers ?? [];
  score.set(
    'name_servers',
    gotServers.length === servers.length && servers.every((name, i) => name.toLowerCase().replace(/\.$/, '') === gotServers[i]),
  );
  return score;
}

function sameText(got: string | null, want: string | null): boolean {
  const squash = (value: string | null): string | null =>
    value === null ? null : value.replace(/\s+/g, ' ').trim().toLowerCase();
  return squash(got) === squash(want);
}

/**
 * Whether an ISO instant is the `%TIME{…}` of the fixture. A fixture that names no zone states the
 * registry's wall time; it matches the same wall time in UTC, or (where the answer itself names a
 * zone, as JPRS's `(JST)`) that wall time in any whole-quarter-hour offset, since Dossier applies the
 * zone the answer names and the fixture does not repeat it.
 */
function sameInstant(got: string | null, want: Expected<string>, text: string): boolean {
  if (want === null || want === 'unsupported') return got === null;
  if (got === null) return false;
  const wantMs = fixtureInstant(want);
  if (wantMs === null) return false;
  // Whole seconds: whois-parser drops the fractions that some registries write (`.979Z`).
  const gotMs = Math.floor(Date.parse(got) / 1000) * 1000;
  if (gotMs === wantMs) return true;
  if (hasZoneSuffix(want)) return false;
  const offset = wantMs - gotMs;
  return (
    /\b(?:JST|KST|CST|CET|CEST|EET|MSK|GMT[+-]|UTC[+-])|[+-]\d{2}:?\d{2}\b/.test(text) &&
    offset % 900_000 === 0 &&
    Math.abs(offset) <= 14 * 3600_000
  );
}

const ZONES: Record<string, string> = {
  UTC: '+00:00',
  GMT: '+00:00',
  PDT: '-07:00',
  JST: '+09:00',
  EAT: '+03:00',
  WAT: '+01:00',
};

function hasZoneSuffix(value: string): boolean {
  return /(?:Z|[A-Z]{3}|[+-]\d{2}:?\d{2})$/.test(value);
}

/** The instant of a fixture's `%TIME{…}`, in UTC when it names no zone. */
function fixtureInstant(value: string): number | null {
  const short = /^(\d{2})\/(\d{2})\/(\d{2})$/.exec(value);
  if (short) return Date.UTC(2000 + Number(short[1]), Number(short[2]) - 1, Number(short[3]));
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[A-Z]{3}|[+-]\d{2}:?\d{2})?$/.exec(
    value.replace(/:-\d{4}Z$/, ':00Z'),
  );
  if (!match) return null;
  const [, date, clock = '00:00:00', zone = 'Z'] = match;
  const offset = zone === 'Z' ? 'Z' : (ZONES[zone] ?? zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2'));
  const ms = Date.parse(`${date}T${clock.length === 5 ? `${clock}:00` : clock}${offset}`);
  return Number.isFinite(ms) ? ms : null;
}
