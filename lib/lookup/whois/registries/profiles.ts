import { cnpjOwnerLayout, jprsStateLayout, lastChangedLayout, okUntilLayout, rwhoisLayout, tonicLayout } from './layouts.js';
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
  // Verisign's .name takes `domain=NAME` for a domain (the form weppos/whois's server table gives it):
  // it also holds e-mail forwardings and other objects that a bare name may match.
  { tlds: ['name'], servers: ['whois.nic.name'], query: 'domain={domain}' },
  // DK Hostmaster names the contacts by their handles when asked `--show-handles` (weppos/whois's form).
  { tlds: ['dk'], servers: ['whois.dk-hostmaster.dk'], query: '--show-handles {domain}' },
  // puntCAT: `-C US-ASCII` for an answer in ASCII, `ace` for a name given in punycode (weppos/whois's form).
  { tlds: ['cat'], servers: ['whois.nic.cat', 'whois.cat'], query: '-C US-ASCII ace {domain}' },
  // JPRS answers in Japanese and ISO-2022-JP unless asked for English with `/e`.
  // The term of an attribute-type name (`.co.jp`) is only in its `[State]`.
  { tlds: ['jp'], servers: ['whois.jprs.jp'], query: '{domain}/e', charset: 'iso-2022-jp', layout: jprsStateLayout },
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
  // The Tunisian Internet Agency writes `Acivated` for the domain's creation.
  { tlds: ['tn'], servers: ['whois.ati.tn'], labels: { created: ['acivated'] } },
  // The .coop registry lists the domain's hosts as objects of their own: `Host Name: ns1.example.net`.
  { tlds: ['coop'], servers: ['whois.nic.coop'], labels: { nameServers: ['host name'] } },
  // whois.gov.za publishes the application form: its `Date` is the day the name was applied for.
  { tlds: ['gov.za'], servers: ['whois.gov.za'], labels: { created: ['date'] } },
  // .fo: the domain says `registered:`; the `created:` lines below are its contact's and its name servers'.
  { tlds: ['fo'], servers: ['whois.nic.fo'], labels: { created: ['registered'] } },
  // NIC.LV: the domain's block says `Changed:`; `[Whois] Updated:` is the time of the answer.
  { tlds: ['lv'], servers: ['whois.nic.lv'], labels: { updated: ['domain changed'] } },
  // Ukrainian registries: `status: OK-UNTIL 20131218000000` holds the expiry.
  { tlds: ['ua'], servers: ['whois.ua', 'whois.in.ua'], layout: okUntilLayout },
  // The .ma registry answered in RWhois (`domain:Created:20090324`).
  { tlds: ['ma'], servers: ['whois.registre.ma', 'whois.iam.net.ma'], layout: rwhoisLayout },
  // ISOC-IL lists the domain's changes, oldest first.
  { tlds: ['il'], servers: ['whois.isoc.org.il'], layout: lastChangedLayout },
  // Registro.br: the holder is an organization when its tax number is a company's.
  { tlds: ['br'], servers: ['whois.registro.br', 'whois.nic.br'], layout: cnpjOwnerLayout },
  // Tonic (.to) gives a registered name's servers alone.
  { tlds: ['to'], servers: ['whois.tonic.to'], layout: tonicLayout },
];
