import type { WhoisData } from '../../ports/lookup-service.js';

/** The fields one registry or registrar answer gave, before the answers are merged. */
export type WhoisFacts = Pick<
  WhoisData,
  | 'registrar'
  | 'registrarUrl'
  | 'registrarIanaId'
  | 'registrarAbuseEmail'
  | 'registrant'
  | 'createdAt'
  | 'updatedAt'
  | 'expiresAt'
  | 'nameServers'
  | 'status'
  | 'dnssec'
  | 'whoisServer'
>;

/** Facts with every field missing. */
export function emptyFacts(): WhoisFacts {
  return {
    registrar: null,
    registrarUrl: null,
    registrarIanaId: null,
    registrarAbuseEmail: null,
    registrant: { organization: null, countryCode: null },
    createdAt: null,
    updatedAt: null,
    expiresAt: null,
    nameServers: [],
    status: [],
    dnssec: null,
    whoisServer: null,
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
    registrarUrl: registry.registrarUrl ?? registrar.registrarUrl,
    registrarIanaId: registry.registrarIanaId ?? registrar.registrarIanaId,
    registrarAbuseEmail: registry.registrarAbuseEmail ?? registrar.registrarAbuseEmail,
    registrant: {
      organization: registry.registrant.organization ?? registrar.registrant.organization,
      countryCode: registry.registrant.countryCode ?? registrar.registrant.countryCode,
    },
    createdAt: registry.createdAt ?? registrar.createdAt,
    updatedAt: registry.updatedAt ?? registrar.updatedAt,
    expiresAt: registry.expiresAt ?? registrar.expiresAt,
    nameServers: registry.nameServers.length > 0 ? registry.nameServers : registrar.nameServers,
    status: registry.status.length > 0 ? registry.status : registrar.status,
    dnssec: registry.dnssec ?? registrar.dnssec,
    whoisServer: registrar.whoisServer ?? registry.whoisServer,
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
