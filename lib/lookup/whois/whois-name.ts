import { getDomain } from 'tldts';
import { REGISTRY_ZONES, type ZoneRegistry } from './registries/zones.js';

/** The name a whois question is about, and the registry-run zone that holds it, if any. */
export interface WhoisName {
  /** The registrable name, in punycode: `example.co.uk` for `www.example.co.uk`, `bestb.uy.com` for `www.bestb.uy.com`. */
  domain: string;
  /** The registry-run second-level zone it sits under, and that zone's whois server; null for any other name. */
  zone: { name: string; server: string } | null;
}

/**
 * Which name a whois lookup asks about. A name is cut to its registrable part by the ICANN section of
 * the Public Suffix List (`www.example.co.uk` → `example.co.uk`; a platform's suffix of the private
 * section, `github.io`, is not a registry, so `me.github.io` → `github.io`). Under a zone that runs a
 * registry of its own ({@link REGISTRY_ZONES}: CentralNic's `uk.com`, `co.pl`, EU.org's `asso.eu.org`,
 * …) the name is a registration at that registry and is kept down to the label under the longest zone
 * (`www.bestb.uy.com` → `bestb.uy.com`, `www.foo.asso.eu.org` → `foo.asso.eu.org`), or to the suffix
 * that tldts's copy of the List's private section names under the zone when the table does not list it
 * (a newer List than the table's). The zone's own name (`uy.com`) is the TLD registry's.
 */
export class WhoisNames {
  private readonly servers = new Map<string, string>();

  /** @param registries the registry-run zones and their servers (tests point them at loopback servers). */
  constructor(registries: readonly ZoneRegistry[] = REGISTRY_ZONES) {
    for (const { server, zones } of registries) for (const zone of zones) this.servers.set(zone, server);
  }

  /** What to ask about `name` (a host name in lower-case punycode), and where when its zone says. */
  of(name: string): WhoisName {
    const labels = name.split('.');
    // The longest zone wins; a zone must leave a label of its own in the name.
    for (let i = 1; i < labels.length - 1; i += 1) {
      const zone = labels.slice(i).join('.');
      const server = this.servers.get(zone);
      if (server === undefined) continue;
      const own = labels.slice(i - 1).join('.');
      const listed = getDomain(name, { extractHostname: false, allowPrivateDomains: true });
      const domain = listed !== null && listed.length > own.length && listed.endsWith(`.${zone}`) ? listed : own;
      return { domain, zone: { name: zone, server } };
    }
    return { domain: getDomain(name, { extractHostname: false }) ?? name, zone: null };
  }
}
