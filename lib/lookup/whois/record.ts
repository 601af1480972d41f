import type { WhoisData } from '../../ports/lookup-service.js';

/** The fields one registry or registrar answer gave, before the answers are merged. */
export type WhoisFacts = Pick<
  WhoisData,
  | 'registrar'
  | 'registrar_url'
  | 'registrar_iana_id'
  | 'created_at'
  | 'updated_at'
  | 'expires_at'
  | 'name_servers'
  | 'status'
  | 'dnssec'
  | 'whois_server'
>;

/** Facts with every field missing. */
export function emptyFacts(): WhoisFacts {
  return {
    registrar: null,
    registrar_url: null,
    registrar_iana_id: null,
    created_at: null,
    updated_at: null,
    expires_at: null,
    name_servers: [],
    status: [],
    dnssec: null,
    whois_server: null,
  };
}

/**
 * The registry's facts completed by the registrar's: the registry is authoritative for what it holds,
 * the registrar fills what the registry left out (a thin registry gives little more than the
 * registrar's name). The registrar's own whois server, when it names one, is the one worth showing.
 */
export function completeFacts(registry: WhoisFacts, registrar: WhoisFacts): WhoisFacts {
  return {
    registrar: registry.registrar ?? registrar.registrar,
    registrar_url: registry.registrar_url ?? registrar.registrar_url,
    registrar_iana_id: registry.registrar_iana_id ?? registrar.registrar_iana_id,
    created_at: registry.created_at ?? registrar.created_at,
    updated_at: registry.updated_at ?? registrar.updated_at,
    expires_at: registry.expires_at ?? registrar.expires_at,
    name_servers: registry.name_servers.length > 0 ? registry.name_servers : registrar.name_servers,
    status: registry.status.length > 0 ? registry.status : registrar.status,
    dnssec: registry.dnssec ?? registrar.dnssec,
    whois_server: registrar.whois_server ?? registry.whois_server,
  };
}

/** True when an answer told something about a registered domain (not a refusal or a banner). */
export function hasFacts(facts: WhoisFacts): boolean {
  return (
    facts.registrar !== null ||
    facts.created_at !== null ||
    facts.expires_at !== null ||
    facts.name_servers.length > 0 ||
    facts.status.length > 0
  );
}

/** A name server as DNS names are shown: lower case, no trailing dot; null when it is not a host name. */
export function normalizeNameServer(value: string): string | null {
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  return /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9])?)+$/.test(name) ? name : null;
}

/** Unique values, in their first order. */
export function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/**
 * An EPP status code (RFC 5731) from the forms registries write: whois's
 * `clientTransferProhibited https://icann.org/epp#clientTransferProhibited` and RDAP's
 * `client transfer prohibited` (RFC 8056) both give `clientTransferProhibited`. RDAP's `active` is
 * EPP's `ok` (RFC 8056 §2), so both sources agree. Other registries' words are kept as they are.
 * Null for an empty value.
 */
export function normalizeStatus(value: string): string | null {
  const text = value
    .replace(/\(?\s*https?:\/\/\S*\s*\)?/g, ' ')
    .trim()
    .replace(/\s+/g, ' ');
  if (text === '') return null;
  if (/^active$/i.test(text)) return 'ok';
  if (!/^[a-z]+(?: [a-z]+)*$/i.test(text)) return text;
  const words = text.split(' ');
  if (words.length === 1) return /^[A-Z]+$/.test(text) ? text.toLowerCase() : text;
  return words.map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase())).join('');
}

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/**
 * A registry's date as ISO 8601 in UTC, or null when it cannot be read. A date without a time zone is
 * taken as UTC (registries mean UTC; reading it in the server's zone would shift it).
 */
export function toIsoDate(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text === '') return null;
  const attempts = [text, text.split(/\s+/)[0] ?? ''];
  for (const attempt of attempts) {
    const date = parseOneDate(attempt);
    if (date !== null) return date;
  }
  return null;
}

function parseOneDate(text: string): string | null {
  let ms = Number.NaN;
  const iso =
    /^(\d{4})[-./](\d{2})[-./](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?$/i.exec(text);
  const dayFirst = /^(\d{1,2})[-. /]([a-z]{3}|\d{1,2})[-. /](\d{4})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?\s*(Z|UTC|GMT)?$/i.exec(
    text,
  );
  if (iso) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone] = iso;
    const offset = zone === undefined || /^(Z|UTC|GMT)$/i.test(zone) ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
    ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}${offset}`);
  } else if (dayFirst) {
    const [, d = '', mo = '', y = '', h = '00', mi = '00', s = '00'] = dayFirst;
    const month = /^\d+$/.test(mo) ? Number(mo) - 1 : MONTHS[mo.toLowerCase()];
    if (month !== undefined && month >= 0 && month < 12 && Number(d) >= 1 && Number(d) <= 31)
      ms = Date.UTC(Number(y), month, Number(d), Number(h), Number(mi), Number(s));
  } else if (/\d{4}/.test(text) && /(?:Z|UTC|GMT|[+-]\d{2}:?\d{2})$/i.test(text)) {
    ms = Date.parse(text);
  }
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  return year >= 1970 && year < 10000 ? date.toISOString() : null;
}
