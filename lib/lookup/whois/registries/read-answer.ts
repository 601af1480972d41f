import { parse as parseHost } from 'tldts';
import { parseWhoisDate } from '../dates.js';
import { emptyFacts, normalizeNameServer, normalizeStatus, unique, type WhoisFacts } from '../record.js';
import { countryCode } from './countries.js';
import {
  CONTACT_HANDLE,
  CONTACT_SECTION,
  GENERIC_LABELS,
  HOLDER_HANDLE_LABELS,
  ORGANIZATION_TYPE,
  NAME_SERVER_HOST,
  NAME_SERVER_SECTION,
  REGISTRANT_FIELDS,
  REGISTRANT_SECTION,
  REGISTRAR_FIELDS,
  UNKEYED_DATE_LABELS,
  type FieldLabels,
} from './labels.js';
import { LIMITED, NOT_FOUND, PLACEHOLDER, RESERVED } from './phrases.js';
import type { RegistryProfile } from './profile.js';
import { readEntries, type Entry } from './reader.js';

/** What one whois answer says. */
export type WhoisReading =
  /** About a registered domain: its facts, and the registrar's whois server it refers to, if any. */
  | { outcome: 'registered'; facts: WhoisFacts; referral: string | null }
  /** The registry says, in its words, that it holds no such name. */
  | { outcome: 'free' }
  /** The registry refused or limited the question (`limit exceeded`, `try again later`); the words it used. */
  | { outcome: 'limited'; words: string }
  /** Nothing could be read from it. */
  | { outcome: 'empty' };

/**
 * Reads a registry's or registrar's answer about `domain` with the generic reader, the profile's own
 * labels and phrases tried first. A limit, a free name or a reserved one is recognised only when
 * nothing about a registration was read.
 */
export function readWhoisAnswer(domain: string, text: string, profile: RegistryProfile | null): WhoisReading {
  const unkeyed = [...(profile?.unkeyedLabels ?? []), ...UNKEYED_DATE_LABELS];
  const record = domainRecord(text, domain);
  const entries = [...readEntries(record, unkeyed), ...(profile?.layout?.(record) ?? [])];
  const labels = (field: keyof FieldLabels): readonly string[] => [...(profile?.labels?.[field] ?? []), ...GENERIC_LABELS[field]];
  const fields = new Fields(entries, domain);
  const date = (field: 'created' | 'updated' | 'expires'): string | null =>
    fields.first(labels(field), (value) => parseWhoisDate(value, profile?.dateOrder));

  const facts: WhoisFacts = {
    ...emptyFacts(),
    registrar: fields.registrar(labels('registrar')),
    registrarUrl:
      fields.first(labels('registrarUrl'), (value) => (/^(?:https?:\/\/)?[\w-]+(?:\.[\w-]+)+\S*$/i.test(value) ? value : null)) ??
      fields.inRegistrar(REGISTRAR_FIELDS.url),
    registrarIanaId: fields.first(labels('registrarIanaId'), (value) => (/^\d+$/.test(value) ? value : null)),
    registrarAbuseEmail: fields.first(labels('abuseEmail'), emailOf) ?? emailOf(fields.inRegistrar(REGISTRAR_FIELDS.abuseEmail)),
    registrant: {
      organization: fields.holderOrganization(labels('registrantOrganization')),
      countryCode: countryCode(
        fields.first(labels('registrantCountry'), countryCode) ?? fields.inRegistrant(REGISTRANT_FIELDS.country),
      ),
    },
    createdAt: date('created'),
    updatedAt: date('updated'),
    expiresAt: date('expires'),
    nameServers: fields.nameServers(labels('nameServers')),
    status: unique(fields.values(labels('status')).flatMap(statusesOf)),
    dnssec: dnssecOf(fields.first(labels('dnssec'), (value) => value)),
  };
  const referral = referralHost(fields.first(labels('referral'), (value) => value));
  facts.whoisServer = referral;

  // An update date alone may be the database's ("Last updated on …" under "No entries found").
  const aboutRegistration =
    facts.registrar !== null || facts.createdAt !== null || facts.expiresAt !== null || facts.nameServers.length > 0;
  // Registered answers' notices mention limits ("queries … are throttled"): a limit counts only when
  // nothing about a registration was read, and only when it is said before any "not found" (AFNIC
  // writes "Too many requests" above "No entries found"; Donuts "Domain not found" above its notice).
  if (!aboutRegistration) {
    const limited = profile?.throttled?.exec(text) ?? LIMITED.exec(text);
    const free = profile?.notFound?.exec(text) ?? NOT_FOUND.exec(text);
    if (limited !== null && (free === null || limited.index < free.index))
      return { outcome: 'limited', words: limited[0].trim() };
    if (free !== null) return { outcome: 'free' };
    if (RESERVED.test(text))
      return { outcome: 'registered', facts: { ...facts, status: unique([...facts.status, 'reserved']) }, referral };
    // An answer that names the domain and says something of it is about a registration (docs/contract.md
    // §10): only one that says nothing, or that the question was wrong, is a 502.
    if (facts.status.length === 0 && facts.updatedAt === null && !namesDomain(record, domain)) return { outcome: 'empty' };
  }
  return { outcome: 'registered', facts, referral };
}

/**
 * The record of the answer that is about `domain`. Verisign's older answers list every name that
 * matches the question (`GOOGLE.COM.ZZZ….MX` as a `Server Name:`, then `GOOGLE.COM`): the record
 * naming the domain itself runs from its line to the next record. A registrar that quotes the
 * registry's answer above its own (Safenames) gives two records of the same domain, and the registry's
 * words, first, are the authority: the answer stops at the second.
 */
function domainRecord(text: string, domain: string): string {
  const records = [...text.matchAll(/^[ \t]*(?:domain name|server name):[ \t]*(\S+)/gim)];
  const name = (record: RegExpMatchArray): string => record[1]!.toLowerCase().replace(/\.$/, '');
  const own = records.findIndex((record) => name(record) === domain.toLowerCase());
  if (own > 0) {
    const next = records.slice(own + 1).find((record) => name(record) !== name(records[own]!));
    return text.slice(records[own]!.index, next?.index);
  }
  const first = records[0] === undefined ? undefined : name(records[0]);
  const second = records.find((record, index) => index > 0 && name(record) === first);
  return second === undefined ? text : text.slice(0, second.index);
}

/** The entries of one answer, asked by label. */
class Fields {
  /** Entries by label, and by `section label`, each list in the order of the text. */
  private readonly byLabel = new Map<string, Entry[]>();
  private readonly byQualified = new Map<string, Entry[]>();
  private readonly position = new Map<Entry, number>();

  constructor(
    private readonly entries: readonly Entry[],
    private readonly domain: string,
  ) {
    const add = (map: Map<string, Entry[]>, key: string, entry: Entry): void => {
      const list = map.get(key);
      if (list === undefined) map.set(key, [entry]);
      else list.push(entry);
    };
    for (const [index, entry] of entries.entries()) {
      if (entry.value === '') continue;
      this.position.set(entry, index);
      add(this.byLabel, entry.label, entry);
      if (entry.section !== '') add(this.byQualified, `${entry.section} ${entry.label}`, entry);
    }
  }

  /**
   * The values of entries labelled with one of `labels`, in the order of `labels` (the most telling
   * first), then of the text; then of longer labels that end with one (`Data de registo / Creation
   * Date`). An entry under a header also answers to `header label`; to its label alone only outside a
   * contact's block (or another object's).
   */
  values(labels: readonly string[]): string[] {
    const own = (entry: Entry, label: string): boolean =>
      entry.section === '' || entry.section === label || !CONTACT_SECTION.test(entry.section);
    const inOrder = (found: Entry[]): string[] =>
      found.sort((a, b) => this.position.get(a)! - this.position.get(b)!).map((entry) => entry.value);
    const values: string[] = [];
    for (const label of labels) {
      const plain = (this.byLabel.get(label) ?? []).filter((entry) => own(entry, label));
      values.push(...inOrder([...(this.byQualified.get(label) ?? []), ...plain]));
    }
    for (const label of labels) {
      if (!label.includes(' ')) continue;
      const longer = [...this.byLabel].filter(([written]) => endsWithLabel(written, label)).flatMap(([, found]) => found);
      values.push(...inOrder(longer.filter((entry) => own(entry, label))));
    }
    return values;
  }

  /** The first value of `labels` that `accept` turns into something, or null. */
  first<T>(labels: readonly string[], accept: (value: string) => T | null): T | null {
    for (const value of this.values(labels)) {
      const accepted = accept(value);
      if (accepted !== null) return accepted;
    }
    return null;
  }

  /**
   * The registrar's name: the first value of `labels` that is a name rather than a registry's handle
   * for it (`MARK-0292`), else a handle, else a field under a `Registrar` header.
   */
  registrar(labels: readonly string[]): string | null {
    const names = [
      ...this.values(labels),
      ...this.underRegistrar(REGISTRAR_FIELDS.organization),
      ...this.underRegistrar(REGISTRAR_FIELDS.name),
    ]
      .map(registrarName)
      .filter((name): name is string => name !== null);
    return names.find((name) => !isHandle(name)) ?? names[0] ?? null;
  }

  inRegistrar(label: RegExp): string | null {
    return this.underRegistrar(label)[0] ?? null;
  }

  inRegistrant(label: RegExp): string | null {
    return this.entries.find((entry) => REGISTRANT_SECTION.test(entry.section) && label.test(entry.label))?.value ?? null;
  }

  /**
   * The holder's organization: a field that names it (`Registrant Organization:`, `org:`, `[組織名]`),
   * else the organization in the holder's block (`[Holder]`, `Registrant:`) or in the contact object its
   * handle names (`holder-c: GIH6-FRNIC`, then `nic-hdl: GIH6-FRNIC`), or that block's name when it is
   * typed as an organization (`type: ORGANIZATION`, `Type: Legal person`). Never a handle, never a
   * placeholder; a person's name alone is no organization.
   */
  holderOrganization(labels: readonly string[]): string | null {
    // A holder's line may end with its e-mail address (`Google Inc.    dns-admin@google.com`, NIC.VE).
    const named = this.first(labels, (value) => (isHandle(value) ? null : meaningful(holderName(value))));
    if (named !== null) return named;
    const holderBlock = this.entries.filter((entry) => REGISTRANT_SECTION.test(entry.section));
    const handles = this.values(HOLDER_HANDLE_LABELS).filter(isHandle);
    const objects = handles.map((handle) => this.objectNamed(handle));
    for (const block of [holderBlock, ...objects]) {
      const organization = organizationOf(block);
      if (organization !== null) return organization;
    }
    return null;
  }

  /** The entries of the contact object whose handle is `handle` (`contact: MM12383`, `nic-hdl: GIH6-FRNIC`). */
  private objectNamed(handle: string): Entry[] {
    const id = handle.toLowerCase();
    const head = this.entries.find(
      (entry) => entry.object !== undefined && CONTACT_HANDLE.test(entry.label) && entry.value.toLowerCase() === id,
    );
    return head === undefined ? [] : this.entries.filter((entry) => entry.object === head.object);
  }

  private underRegistrar(label: RegExp): string[] {
    return this.entries
      .filter((entry) => /^(?:sponsoring )?registrar(?: .*)?$/.test(entry.section) && label.test(entry.label))
      .map((entry) => entry.value);
  }

  /** Name servers: entries with a name-server label, and host names under a name-server header. */
  nameServers(labels: readonly string[]): string[] {
    const values: string[] = [];
    for (const entry of this.entries) {
      const label = entry.label.replace(/\d+/g, ' ').replace(/\s+/g, ' ').trim();
      const qualified = entry.section !== '' && labels.includes(`${entry.section} ${label}`);
      // A name-server set (`nsset`, .cz) is where its servers are; a contact's block is not.
      // A contact's object lists no name servers: one written in it is the next object's, set down
      // with no blank line between them (NIC Argentina).
      const own =
        entry.section === '' ||
        /^(?:nsset\b|nserver$|contact$|person|role$)/.test(entry.section) ||
        !CONTACT_SECTION.test(entry.section);
      const plain = labels.includes(label) && own;
      const underHeader = NAME_SERVER_SECTION.test(entry.section) && NAME_SERVER_HOST.test(label);
      if (qualified || plain || underHeader) values.push(entry.value);
    }
    const domain = this.domain.toLowerCase();
    return unique(values.flatMap(hostNames).filter((name) => name !== domain));
  }
}

/**
 * Whether a longer label ends with a label of two words or more, and what comes before is not a
 * contact's (`Data de registo creation date` is `creation date`; `Admin creation date` is not).
 */
function endsWithLabel(entry: string, label: string): boolean {
  return entry.endsWith(` ${label}`) && !CONTACT_SECTION.test(entry.slice(0, -label.length));
}

/** The host names in a name server's value: `ns1.example.com`, `ns1.example.com 192.0.2.1`, `ns1.example.com. [192.0.2.1]`. */
function hostNames(value: string): string[] {
  let tokens = value.split(/[\s,;()[\]]+/).filter((token) => token !== '');
  // A zone-file line (`google.pt NS ns4.google.com.`): the server is what follows NS.
  const ns = tokens.findIndex((token) => token.toUpperCase() === 'NS');
  if (ns > 0 && ns < tokens.length - 1) tokens = tokens.slice(ns + 1);
  const names = tokens.flatMap((token) => {
    if (/^[\d.]+$/.test(token) || token.includes(':')) return [];
    const name = normalizeNameServer(token);
    return name === null || !inRealTld(name) ? [] : [name];
  });
  // One value names one server and, maybe, its addresses; a list on one line is rare but read too.
  return tokens.length > 0 && names.length > 0 && names[0] === normalizeNameServer(tokens[0]!) ? names : names.slice(0, 1);
}

/** The special-use TLDs of RFC 6761, which tests and examples use. */
const SPECIAL_USE_TLDS = new Set(['test', 'example', 'invalid', 'localhost']);

/**
 * Whether a host name ends in a TLD that exists (the Public Suffix List's ICANN section) or a special-use
 * one: a registry's handle for a host (`NS1GOOG0.SER`, MYNIC) or a placeholder (`not.defined.`, .uz) is
 * not a name server.
 */
function inRealTld(name: string): boolean {
  return SPECIAL_USE_TLDS.has(name.slice(name.lastIndexOf('.') + 1)) || parseHost(name).isIcann === true;
}

/**
 * Whether the answer names `domain` on a line of its own words (not a comment) and says something
 * beyond it, without saying the question was wrong (`Invalid domain name`, `syntax error`).
 */
function namesDomain(text: string, domain: string): boolean {
  const name = domain.toLowerCase();
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !/^\s*[%#]/.test(line));
  if (lines.some((line) => /\b(?:invalid|not valid|malformed|syntax|error)\b/i.test(line))) return false;
  const named = new RegExp(`(?:^|[^a-z0-9.-])${escapeRegExp(name)}(?:$|[^a-z0-9-]|\\.(?![a-z0-9]))`, 'i');
  const naming = lines.findIndex((line) => named.test(line));
  return naming !== -1 && (lines.length > 1 || lines[naming]!.toLowerCase().replace(name, '').replace(/\W+/g, '') !== '');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function statusesOf(value: string): string[] {
  // A sentence under a status header is a notice (`Please visit www.dns.be for more info.`), not a status.
  if (/\b(?:please|visit)\b/i.test(value) || (/[.!]$/.test(value) && value.split(/\s+/).length > 5)) return [];
  const parts = /,/.test(value) ? value.split(',') : [value];
  return parts.flatMap((part) => {
    // `clientTransferProhibited - status prohibits domain transfer`: the code and its explanation.
    const code = normalizeStatus(part.trim().split(/\s+-\s+|\s+\(/)[0] ?? '');
    return (code !== null && /^[a-z]+[A-Z]/.test(code) ? code : normalizeStatus(part)) ?? [];
  });
}

/** A registrar's name without the registry's handle for it in parentheses (`MarkMonitor, Inc. (R22-LRCC)`). */
function registrarName(value: string): string | null {
  if (value.startsWith('!')) return null; // a YAML tag (`registrar: !Registrar`), not a name
  const name = value
    .replace(/\s*\((?:R\d+-\w+|\d+|[A-Z0-9-]+)\)\s*$/, '')
    .replace(/\s*\[tag = [^\]]*\]\s*$/i, '') // Nominet's `[Tag = MARKMONITOR]`
    .replace(/\s*\((?:https?:\/\/|www\.)[^)]*\)\s*$/i, '') // its web site: `Whois Corp.(http://whois.co.kr)`
    .replace(/\s+t\/a\s.*$/i, '') // "trading as": the legal name comes first
    .replace(/\s+R\d+-[A-Z]{2,5}$/, '') // an Afilias-style registry handle after the name
    .replace(/\s+/g, ' ')
    .trim();
  return meaningful(name);
}

/**
 * A holder's name as a block's first line writes it, without what follows it there: its e-mail address
 * and its handle in parentheses (`Cacao del Sur C.A.  (cacao.com.ve-dom)    info@cacao.com.ve`, NIC.VE).
 */
function holderName(value: string): string {
  return value
    .replace(/\s+[\w.+-]+@[\w.-]+$/, '')
    .replace(/\s+\([^()\s]*\d?[^()\s]*-[^()\s]+\)$/, '')
    .replace(/\s{2,}/g, ' ');
}

/** A contact's organization from its entries: an organization field, else its name when typed as an organization. */
function organizationOf(block: readonly Entry[]): string | null {
  const organization = block.find(
    (entry) => REGISTRANT_FIELDS.organization.test(entry.label) && meaningful(entry.value) !== null,
  );
  if (organization !== undefined && !isHandle(organization.value)) return meaningful(organization.value);
  if (
    !block.some(
      (entry) => /^(?:type|contact type|ownertype|entity type)$/.test(entry.label) && ORGANIZATION_TYPE.test(entry.value),
    )
  )
    return null;
  const name = block.find((entry) => REGISTRANT_FIELDS.name.test(entry.label) && meaningful(entry.value) !== null);
  return name === undefined || isHandle(name.value) ? null : meaningful(name.value);
}

/**
 * A registry's handle for a contact or a registrar (`MARK-0292`, `GI7803022-NICAT`, `mm-87489`,
 * `pl-imena-1`), not a name: one word, with digits or written all in capitals with a separator.
 */
function isHandle(value: string): boolean {
  if (/\s/.test(value)) return false;
  return (/[\d_-]/.test(value) && value === value.toUpperCase()) || /^(?=[^.]*\d)[a-z0-9]+(?:[-_.][a-z0-9]+)+$/i.test(value);
}

/** The value, or null when it is a placeholder (`REDACTED FOR PRIVACY`, `Not Disclosed`, `N/A`). */
export function meaningful(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim();
  return text === '' || PLACEHOLDER.test(text) ? null : text;
}

function emailOf(value: string | null): string | null {
  if (value === null) return null;
  const match = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(value);
  return match === null ? null : match[0].toLowerCase();
}

function dnssecOf(value: string | null): boolean | null {
  const text = value?.trim().toLowerCase();
  if (text === undefined) return null;
  if (/^(?:unsigned|no|n|none|inactive|false|not signed|unsigned delegation)\b/.test(text)) return false;
  if (/^(?:signed|signeddelegation|signed delegation|yes|y|active|true)\b/.test(text)) return true;
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
