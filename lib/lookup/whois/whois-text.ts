import { createRequire } from 'node:module';
import { DossierError } from '../../errors.js';
import { emptyFacts, normalizeNameServer, normalizeStatus, toIsoDate, unique, type WhoisFacts } from './record.js';

/** whoiser's whois-text parser: its label table knows how dozens of registries spell each field. */
export type ParseDomainWhois = (domain: string, text: string, ignorePrivacy: boolean) => Record<string, unknown>;

/** The module of whoiser that holds {@link ParseDomainWhois}; not part of its public API (hence a pinned version). */
export const WHOISER_PARSERS_MODULE = 'whoiser/src/parsers.js';

/** The whoiser version this file was written and tested against. */
const WHOISER_TESTED_VERSION = '1.18.0';

const require = createRequire(import.meta.url);

/**
 * Loads whoiser's internal `parseDomainWhois`. whoiser exports no parser of its own, and its `query()`
 * cannot be used safely (see port43.ts), so Dossier reaches into `src/parsers.js`; whoiser's version
 * is pinned for that reason, and this check turns an upgrade that moved the function into a clear error.
 * @throws DossierError `ERR_NOT_IMPLEMENTED`, naming the installed whoiser version, when `specifier`
 *   cannot be loaded or exports no `parseDomainWhois` function.
 */
export function loadWhoiserParser(specifier: string = WHOISER_PARSERS_MODULE): ParseDomainWhois {
  let parser: unknown;
  let cause: unknown;
  try {
    parser = (require(specifier) as { parseDomainWhois?: unknown }).parseDomainWhois;
  } catch (error) {
    cause = error;
  }
  if (typeof parser === 'function') return parser as ParseDomainWhois;
  throw new DossierError(
    'ERR_NOT_IMPLEMENTED',
    `whoiser ${whoiserVersion()} has no parseDomainWhois function in ${specifier}; the whois lookup was written against ` +
      `whoiser ${WHOISER_TESTED_VERSION}: install that version or adapt lib/lookup/whois/whois-text.ts.`,
    { cause },
  );
}

/** The installed whoiser's version, or "(version unknown)". */
export function whoiserVersion(): string {
  try {
    const { version } = require('whoiser/package.json') as { version?: unknown };
    return typeof version === 'string' ? version : '(version unknown)';
  } catch {
    return '(version unknown)';
  }
}

const parseDomainWhois = loadWhoiserParser();

/** What one whois answer says about a domain. */
export interface WhoisText {
  /** True when the server says it holds no such domain. */
  notFound: boolean;
  /** The fields it gave. */
  facts: WhoisFacts;
  /** The registrar's whois server it refers to (`host` or `host:port`), if any. */
  referral: string | null;
}

/** The first line of a "no such domain" answer, as registries word it. */
const NOT_FOUND =
  /^[\s%#>*]*(?:no match|not found|no data found|domain not found|no entries found|no object found|nothing found|no such domain|object does not exist|the queried object does not exist|no information available|this domain(?: name)? (?:has not been|is not) registered|domain(?: name)? (?:is )?not registered|(?:domain )?status:\s*(?:free|available|not registered)\b)/im;

const DNSSEC = /^[ \t]*dnssec[^:\n]*:[ \t]*(\S[^\r\n]*)$/im;

/**
 * Reads a registry's or registrar's whois answer. Answers that carry no field (a rate-limit notice,
 * garbage) give empty facts, not an error: the caller decides what that means.
 */
export function parseWhoisText(domain: string, text: string): WhoisText {
  const fields = safeParse(domain, text);
  const str = (...labels: string[]): string | null => {
    for (const label of labels) {
      const value = fields[label];
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    }
    return null;
  };
  const list = (label: string): string[] => {
    const value = fields[label];
    if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
    return typeof value === 'string' ? [value] : [];
  };
  const ianaId = str('Registrar IANA ID');
  const facts: WhoisFacts = {
    ...emptyFacts(),
    registrar: str('Registrar'),
    registrar_url: str('Registrar URL', 'Registrar URL (registration services)', 'Referral URL'),
    registrar_iana_id: ianaId !== null && /^\d+$/.test(ianaId) ? ianaId : null,
    created_at: toIsoDate(str('Created Date')),
    updated_at: toIsoDate(str('Updated Date')),
    expires_at: toIsoDate(str('Expiry Date')),
    name_servers: unique(list('Name Server').flatMap((value) => normalizeNameServer(value) ?? [])),
    status: unique(list('Domain Status').flatMap((value) => normalizeStatus(value) ?? [])),
    dnssec: dnssecOf(text),
  };
  const referral = referralHost(
    str('Registrar WHOIS Server', 'Registrar Whois', 'Whois Server', 'WHOIS Server', 'ReferralServer'),
  );
  facts.whois_server = referral;
  const notFound =
    NOT_FOUND.test(text) && facts.registrar === null && facts.created_at === null && facts.name_servers.length === 0;
  return { notFound, facts, referral };
}

/** The `whois:` server IANA's answer for a TLD names, if any. */
export function tldWhoisServer(text: string): string | null {
  const match = /^whois:[ \t]*(\S+)/im.exec(text);
  return match?.[1]?.toLowerCase() ?? null;
}

function safeParse(domain: string, text: string): Record<string, unknown> {
  try {
    return parseDomainWhois(domain, text, true);
  } catch {
    // Some of whoiser's per-TLD readers throw on shapes they did not expect; the generic reader copes.
    try {
      return parseDomainWhois('domain.invalid', text, true);
    } catch {
      return {};
    }
  }
}

function dnssecOf(text: string): boolean | null {
  const value = DNSSEC.exec(text)?.[1]?.trim().toLowerCase();
  if (value === undefined) return null;
  if (/^(?:unsigned|no|none|inactive|false|not signed|unsigned delegation)\b/.test(value)) return false;
  if (/^(?:signed|signeddelegation|yes|active|true)\b/.test(value)) return true;
  return null;
}

/**
 * A referral's server as `host` or `host:port`: URL forms (`http://whois.example.com/`) give their host
 * name, the way whoiser and the `whois` tool read them. Null when it is not a host name.
 */
function referralHost(value: string | null): string | null {
  if (value === null) return null;
  let host = value.trim().toLowerCase();
  if (host.includes('://')) {
    try {
      host = new URL(host).hostname;
    } catch {
      return null;
    }
  }
  host = host.replace(/\/.*$/, '').replace(/\.$/, '');
  return /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?$/.test(host) && host.includes('.') ? host : null;
}
