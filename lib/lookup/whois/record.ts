import type { WhoisData } from '../../ports/lookup-service.js';

/** The fields one registry or registrar answer gave, before the answers are merged. */
export type WhoisFacts = Pick<
  WhoisData,
  | 'registrar'
  | 'registrar_url'
  | 'registrar_iana_id'
  | 'registrar_abuse_email'
  | 'registrant'
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
    registrar_abuse_email: null,
    registrant: { organization: null, country_code: null },
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
    registrar_abuse_email: registry.registrar_abuse_email ?? registrar.registrar_abuse_email,
    registrant: {
      organization: registry.registrant.organization ?? registrar.registrant.organization,
      country_code: registry.registrant.country_code ?? registrar.registrant.country_code,
    },
    created_at: registry.created_at ?? registrar.created_at,
    updated_at: registry.updated_at ?? registrar.updated_at,
    expires_at: registry.expires_at ?? registrar.expires_at,
    name_servers: registry.name_servers.length > 0 ? registry.name_servers : registrar.name_servers,
    status: registry.status.length > 0 ? registry.status : registrar.status,
    dnssec: registry.dnssec ?? registrar.dnssec,
    whois_server: registrar.whois_server ?? registry.whois_server,
  };
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

/** The status codes of EPP (RFC 5731 §2.3, RFC 3915's grace periods), keyed by their letters in lower case. */
const EPP_CODES = new Map(
  [
    'ok',
    'inactive',
    'addPeriod',
    'autoRenewPeriod',
    'renewPeriod',
    'transferPeriod',
    'redemptionPeriod',
    'pendingCreate',
    'pendingDelete',
    'pendingRenew',
    'pendingRestore',
    'pendingTransfer',
    'pendingUpdate',
    'clientDeleteProhibited',
    'clientHold',
    'clientRenewProhibited',
    'clientTransferProhibited',
    'clientUpdateProhibited',
    'serverDeleteProhibited',
    'serverHold',
    'serverRenewProhibited',
    'serverTransferProhibited',
    'serverUpdateProhibited',
  ].map((code) => [code.toLowerCase(), code]),
);

/**
 * A status as docs/contract.md §10 spells it: an EPP code (RFC 5731) as EPP spells it, from any of the forms
 * registries write (`clientTransferProhibited https://icann.org/epp#clientTransferProhibited`,
 * `CLIENT TRANSFER PROHIBITED`, RDAP's `client transfer prohibited`); RDAP's `active` is EPP's `ok`
 * (RFC 8056 §2), so both sources agree. Other words are kept, in lower case. Null for an empty value.
 */
export function normalizeStatus(value: string): string | null {
  const text = value
    .replace(/\(?\s*https?:\/\/\S*\s*\)?/g, ' ')
    .trim()
    .replace(/\s+/g, ' ');
  if (text === '') return null;
  const letters = text.toLowerCase().replace(/[\s_-]+/g, '');
  if (letters === 'active') return 'ok';
  return EPP_CODES.get(letters) ?? text.toLowerCase();
}
