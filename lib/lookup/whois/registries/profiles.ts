import type { RegistryProfile } from './profile.js';

/**
 * The registries whose whois service differs from the generic reading: how to ask them, the charset
 * they answer in, their own words. One row a registry; docs/whois.md says how to add one.
 * Rows say what a registry does in general, never what one answer holds.
 */
export const REGISTRY_PROFILES: readonly RegistryProfile[] = [
  // Verisign's thin registries: a bare name also matches name servers and registrars' names.
  {
    tlds: ['com', 'net', 'cc', 'tv', 'jobs'],
    servers: ['whois.verisign-grs.com', 'ccwhois.verisign-grs.com', 'tvwhois.verisign-grs.com', 'whois.nic.jobs'],
    query: 'domain {domain}',
  },
  // DENIC: `-T dn` asks for the domain's data alone; `ace` reads an internationalized name as given.
  { tlds: ['de'], servers: ['whois.denic.de'], query: '-T dn,ace {domain}' },
  // JPRS answers in Japanese and ISO-2022-JP unless asked for English with `/e`.
  { tlds: ['jp'], servers: ['whois.jprs.jp'], query: '{domain}/e', charset: 'iso-2022-jp' },
  // KISA's legacy whois answers in EUC-KR; its current one in UTF-8, which is tried first.
  { tlds: ['kr'], servers: ['whois.kr', 'whois.nic.or.kr'], charset: 'euc-kr' },
  // TWNIC's answers that are not UTF-8 are Big5.
  { tlds: ['tw'], servers: ['whois.twnic.net.tw'], charset: 'big5' },
  // CNNIC: GB18030 where not UTF-8.
  { tlds: ['cn'], servers: ['whois.cnnic.cn'], charset: 'gb18030' },
  // HKIRC writes the domain's dates inside the registrant's block, which the generic reader keeps apart.
  {
    tlds: ['hk'],
    servers: ['whois.hkirc.hk'],
    labels: {
      created: ['registrant contact information domain name commencement date'],
      expires: ['registrant contact information expiry date'],
    },
  },
  // Freenom's registries write American dates (`Record will expire on: 03/02/2012` is 2 March).
  {
    tlds: ['tk', 'ml', 'ga', 'cf', 'gq'],
    servers: ['whois.dot.tk', 'whois.dot.ml', 'whois.dot.ga', 'whois.dot.cf', 'whois.dominio.gq'],
    dateOrder: 'mdy',
  },
];
