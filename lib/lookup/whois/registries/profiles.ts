import type { RegistryProfile } from './profile.js';

/**
 * The registries whose whois service differs from the generic reading: how to ask them, the charset
 * they answer in, their own words. One row a registry; README "Adding a registry" says how to add one.
 * Rows hold what the registry does in general, never what one answer says.
 */
export const REGISTRY_PROFILES: readonly RegistryProfile[] = [
  // Verisign's thin registries: a bare name also matches name servers and registrars' names.
  {
    tlds: ['com', 'net', 'cc', 'tv', 'jobs'],
    servers: ['whois.verisign-grs.com', 'ccwhois.verisign-grs.com', 'tvwhois.verisign-grs.com'],
    query: 'domain {domain}',
  },
  // DENIC gives the holder's data only with `-T dn`, and reads internationalized names as given with `ace`.
  { tlds: ['de'], servers: ['whois.denic.de'], query: '-T dn,ace {domain}', notFound: /^Status:\s*free\b/im },
  // JPRS answers in Japanese and ISO-2022-JP unless asked for English with `/e`.
  { tlds: ['jp'], servers: ['whois.jprs.jp'], query: '{domain}/e', charset: 'iso-2022-jp' },
];
