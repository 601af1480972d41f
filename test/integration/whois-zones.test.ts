import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseHostPort } from '../../lib/lookup/net/host-port.js';
import { REGISTRY_ZONES } from '../../lib/lookup/whois/registries/zones.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { projectRoot } from '../support/paths.js';
import { startRdapServer, type TestRdapServer } from '../support/rdap-server.js';
import { whoisLookupOnLoopback } from '../support/whois-lookup.js';
import { startWhoisServer, type TestWhoisServer } from '../support/whois-server.js';

// Every registry-run second-level zone of the generated table (docs/whois.md): a name under it is asked
// of that zone's own whois server, as itself. Each zone's server is a loopback fake registry that
// answers only about the name it is asked (`udr.hk.com`), "No match" to any other; IANA names a server
// that knows nothing for every TLD, so a lookup that asks the TLD's registry, or the zone's name, reads
// no registration.

describe("whois under every registry-run second level, asked of the zone's own server (loopback registries)", function () {
  this.timeout(120_000);
  let dns: TestDnsServer;
  let directory: TestRdapServer;
  let iana: TestWhoisServer;
  let registry: TestWhoisServer;
  let elsewhere: TestWhoisServer;

  before(async () => {
    const hosts = ['data.iana.test', 'elsewhere.test', ...REGISTRY_ZONES.map(({ server }) => server)];
    dns = await startDnsServer(Object.fromEntries(hosts.map((host) => [host, { A: [{ address: '127.0.0.1' }] }])));
    directory = await startRdapServer(() => ({ contentType: 'application/json', body: { version: '1.0', services: [] } }));
    elsewhere = await startWhoisServer((query) => `No match for "${query}".\r\n`);
    iana = await startWhoisServer(() => `whois:        elsewhere.test:${elsewhere.port}\n`);
    registry = await startWhoisServer(() => 'no answer set\r\n');
  });
  after(async () => {
    await Promise.all([dns?.close(), directory?.close(), iana?.close(), registry?.close(), elsewhere?.close()]);
  });

  it('reads the registration of a full name under each zone, from that zone’s server only', async () => {
    const wrong: string[] = [];
    for (const { server, zones } of REGISTRY_ZONES) {
      for (const zone of zones) {
        const name = `udr.${zone}`;
        registry.reply = (query) =>
          query === name
            ? `Domain Name: ${name.toUpperCase()}\r\nRegistrar: Zone Registrar of ${zone}\r\nCreation Date: 2015-06-01T00:00:00Z\r\nName Server: ns1.${name}.example\r\n`
            : `No match for "${query}".\r\n`;
        const whois = whoisLookupOnLoopback({
          dnsServer: dns.address,
          bootstrapUrl: `http://data.iana.test:${directory.port}/rdap/dns.json`,
          ianaWhoisServer: parseHostPort(iana.address, 43)!,
          // This zone's server is the fake registry; every other zone's knows nothing.
          registryZones: REGISTRY_ZONES.map((row) => ({
            server: row.server === server ? `${server}:${registry.port}` : `elsewhere.test:${elsewhere.port}`,
            zones: row.zones,
          })),
        });
        const data = await whois
          .run(whois.parse(`www.${name}`), new AbortController().signal)
          .then((result) => result.data)
          .catch(() => null);
        if (data?.domain !== name || data.registrar !== `Zone Registrar of ${zone}` || registry.queries.at(-1) !== name)
          wrong.push(`${name} (${server}): asked ${registry.queries.at(-1) ?? 'nothing'}, read ${data?.domain ?? 'nothing'}`);
      }
    }
    const all = REGISTRY_ZONES.flatMap(({ zones }) => zones);
    // From the List's private section (registries' blocks) and from the registries' own lists.
    expect(all).to.include.members(['hk.com', 'uy.com', 'co.pl', 'eu.org', 'asso.eu.org', 'msk.ru', 'it.com', 'gb.com']);
    // Platforms' suffixes in the same section are not registries.
    for (const platform of ['github.io', 'blogspot.com', 'herokuapp.com']) expect(all).not.to.include(platform);
    expect(wrong).to.deep.equal([]);
  });

  it('the committed table is what scripts/whois-zones.mjs generates from its sources', async () => {
    await promisify(execFile)(process.execPath, [join(projectRoot(), 'scripts', 'whois-zones.mjs'), '--check']);
  });
});
