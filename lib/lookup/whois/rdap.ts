import { DossierError } from '../../errors.js';
import { parseWhoisDate } from './dates.js';
import { emptyFacts, normalizeNameServer, normalizeStatus, unique, type WhoisFacts } from './record.js';
import { countryCode } from './registries/countries.js';
import { meaningful } from './registries/read-answer.js';

/** What one RDAP answer says about a domain. */
export interface RdapDomain {
  /** True for RDAP's "no such object" (HTTP 404, or an error object with code 404). */
  notFound: boolean;
  facts: WhoisFacts;
  /** The registrar's RDAP URL for this domain (a `related` link), if any. */
  referral: string | null;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * Reads an RDAP answer (RFC 9083) to a domain query: HTTP 404 is "not registered", 200 must be a
 * domain object. Registrar from the `registrar` entity (vCard `fn`, `IANA Registrar ID` public id,
 * vCard `url` or an `about` link), dates from `events`, `nameservers`, `status`, `secureDNS`, `port43`.
 * @throws DossierError `ERR_UPSTREAM_FAILED` for any other status, malformed JSON or another object.
 */
export function parseRdapAnswer(status: number, body: string, url: string): RdapDomain {
  const host = new URL(url).host;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (cause) {
    if (status === 404) return { notFound: true, facts: emptyFacts(), referral: null };
    throw new DossierError('ERR_UPSTREAM_FAILED', `The RDAP server ${host} answered malformed JSON (HTTP ${status}).`, { cause });
  }
  if (status === 404 || (isObject(json) && json.errorCode === 404))
    return { notFound: true, facts: emptyFacts(), referral: null };
  if (status !== 200) throw new DossierError('ERR_UPSTREAM_FAILED', `The RDAP server ${host} answered HTTP ${status}.`);
  if (!isObject(json) || json.objectClassName !== 'domain') {
    throw new DossierError('ERR_UPSTREAM_FAILED', `The RDAP server ${host} did not answer with a domain object.`);
  }

  const facts = emptyFacts();
  const events = new Map<string, string>();
  for (const event of arrayOf(json.events)) {
    if (!isObject(event) || typeof event.eventAction !== 'string' || events.has(event.eventAction)) continue;
    const date = parseWhoisDate(text(event.eventDate));
    if (date !== null) events.set(event.eventAction, date);
  }
  facts.createdAt = events.get('registration') ?? null;
  facts.updatedAt = events.get('last changed') ?? null;
  facts.expiresAt = events.get('expiration') ?? events.get('registrar expiration') ?? null;
  const redacted = redactedPaths(json.redacted);
  const registrar = entityWith(json.entities, 'registrar');
  if (registrar !== undefined) {
    const card = vcard(registrar.vcardArray);
    facts.registrar = card.get('fn') ?? card.get('org') ?? null;
    facts.registrarUrl = card.get('url') ?? link(registrar.links, 'about', /html/) ?? null;
    const ianaId = arrayOf(registrar.publicIds).find((id) => isObject(id) && id.type === 'IANA Registrar ID');
    const identifier = isObject(ianaId) ? text(ianaId.identifier) : null;
    facts.registrarIanaId = identifier !== null && /^\d+$/.test(identifier) ? identifier : null;
    const abuse = entityWith(registrar.entities, 'abuse');
    const email = abuse === undefined ? undefined : vcard(abuse.vcardArray).get('email');
    facts.registrarAbuseEmail = email !== undefined && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email.toLowerCase() : null;
  }
  const registrant = entityWith(json.entities, 'registrant');
  if (registrant !== undefined) {
    const card = vcardOf(registrant.vcardArray);
    facts.registrant = {
      organization: redacted.has('org') ? null : meaningful(card.org ?? null),
      countryCode: redacted.has('country') ? null : countryCode(card.country),
    };
  }
  facts.nameServers = unique(
    arrayOf(json.nameservers).flatMap((ns) => {
      const name = isObject(ns) ? text(ns.ldhName) : null;
      return (name !== null && normalizeNameServer(name)) || [];
    }),
  );
  facts.status = unique(arrayOf(json.status).flatMap((value) => (typeof value === 'string' && normalizeStatus(value)) || []));
  if (isObject(json.secureDNS) && typeof json.secureDNS.delegationSigned === 'boolean') {
    facts.dnssec = json.secureDNS.delegationSigned;
  }
  facts.whoisServer = text(json.port43)?.toLowerCase() ?? null;

  const referral = link(json.links, 'related', /rdap\+json|^$/);
  return { notFound: false, facts, referral: referral !== null && referral !== url && referral !== json.self ? referral : null };
}

/** The first entity of `entities` that has `role` among its roles. */
function entityWith(entities: unknown, role: string): Json | undefined {
  return arrayOf(entities).find((entity): entity is Json => isObject(entity) && arrayOf(entity.roles).includes(role));
}

/**
 * What RFC 9537's `redacted` array withholds of the registrant: `org` and/or `country`, read from each
 * member's name (`Registrant Organization`, `Registrant Country`) or JSONPath (`…[?(@[0]=='org')]`).
 * Redacting other parts of the address (`Registrant Street`, `…[?(@[0]=='adr')][3][:3]`) leaves the
 * country as the vCard gives it.
 */
function redactedPaths(value: unknown): Set<'org' | 'country'> {
  const withheld = new Set<'org' | 'country'>();
  for (const member of arrayOf(value)) {
    if (!isObject(member)) continue;
    const name = (
      isObject(member.name) ? `${text(member.name.type) ?? ''} ${text(member.name.description) ?? ''}` : ''
    ).toLowerCase();
    const paths = [text(member.prePath), text(member.postPath)].flatMap((path) =>
      path === null ? [] : [path.replace(/"/g, "'")],
    );
    if (![name, ...paths].some((where) => where.toLowerCase().includes('registrant'))) continue;
    if (/organi[sz]ation/.test(name) || paths.some((path) => path.includes("'org'"))) withheld.add('org');
    if (/country/.test(name) || paths.some(selectsCountry)) withheld.add('country');
  }
  return withheld;
}

/**
 * Whether a JSONPath into a jCard selects the country of its `adr`: the whole property, its whole value,
 * its country-name part (index 6, or a slice that holds it) or its `cc` parameter.
 */
function selectsCountry(path: string): boolean {
  const property = "'adr')]";
  const at = path.indexOf(property);
  if (at === -1) return false;
  const rest = path.slice(at + property.length).replace(/\s+/g, '');
  if (/^(?:|\[3\]|\[3\]\[\*\]|\[3\]\[6\]|\[3\]\[-1\]|\[1\](?:\.cc|\['cc'\]))$/.test(rest)) return true;
  const slice = /^\[3\]\[(\d*):(\d*)\]$/.exec(rest);
  return slice !== null && Number(slice[1] || 0) <= 6 && (slice[2] === '' || Number(slice[2]) > 6);
}

/** The organization and country of a jCard: `org`, and `adr`'s `cc` parameter or its country name. */
function vcardOf(value: unknown): { org: string | undefined; country: string | null } {
  const card = vcard(value);
  let country: string | null = null;
  const [, entries] = arrayOf(value);
  for (const entry of arrayOf(entries)) {
    const [name, parameters, , content] = arrayOf(entry);
    if (name !== 'adr') continue;
    const cc = isObject(parameters) ? text(parameters.cc) : null;
    const label = isObject(parameters) ? text(parameters.label) : null;
    const parts = arrayOf(content);
    country = cc ?? text(parts[6]) ?? (label === null ? null : (label.split('\n').at(-1) ?? null));
    break;
  }
  return { org: card.get('org'), country };
}

/** The first property value of each name in a jCard (RFC 7095). */
function vcard(value: unknown): Map<string, string> {
  const properties = new Map<string, string>();
  const [kind, entries] = arrayOf(value);
  if (kind !== 'vcard') return properties;
  for (const entry of arrayOf(entries)) {
    const [name, , , content] = arrayOf(entry);
    const first = Array.isArray(content) ? content.find((part) => text(part) !== null) : content;
    const string = text(first);
    if (typeof name === 'string' && string !== null && !properties.has(name)) properties.set(name, string);
  }
  return properties;
}

/** The `href` of the first http(s) link with relation `rel` whose media type matches `type`. */
function link(links: unknown, rel: string, type: RegExp): string | null {
  for (const candidate of arrayOf(links)) {
    if (!isObject(candidate) || candidate.rel !== rel) continue;
    const href = text(candidate.href);
    if (href === null || !/^https?:\/\//i.test(href)) continue;
    if (!type.test(typeof candidate.type === 'string' ? candidate.type : '')) continue;
    return href;
  }
  return null;
}
