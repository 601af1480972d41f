import { expect } from 'chai';
import { parse } from 'tldts';
import { REGISTRY_ZONES } from '../../../../lib/lookup/whois/registries/zones.js';
import { WhoisNames } from '../../../../lib/lookup/whois/whois-name.js';

describe('which name a whois lookup asks about', () => {
  const names = new WhoisNames();

  describe('every row of the registry-run zones', () => {
    const seen = new Set<string>();
    for (const { server, zones } of REGISTRY_ZONES) {
      for (const zone of zones) {
        it(`${zone} (${server}): a name under it is asked of ${server} as itself`, () => {
          expect(server).to.match(/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/);
          expect(zone).to.match(/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/);
          expect(seen.has(zone), `${zone} is in two rows`).to.equal(false);
          seen.add(zone);
          // Not a suffix of the List's ICANN section: there the ICANN cut already keeps the name whole.
          const icann = parse(`example.${zone}`);
          expect(icann.publicSuffix, zone).not.to.equal(zone);
          // Where the List's private section names the zone, it cuts the name as the table does.
          const listed = parse(`www.example.${zone}`, { allowPrivateDomains: true });
          if (listed.isPrivate === true && listed.publicSuffix === zone) expect(listed.domain).to.equal(`example.${zone}`);
          expect(names.of(`www.example.${zone}`)).to.deep.equal({ domain: `example.${zone}`, zone: { name: zone, server } });
          expect(names.of(`example.${zone}`).domain).to.equal(`example.${zone}`);
          // The zone's own name is a registration at the registry of the zone above it (`asso.eu.org` at
          // EU.org's), or else at its TLD's registry.
          const above = zone.slice(zone.indexOf('.') + 1);
          const parent = REGISTRY_ZONES.find((row) => row.zones.includes(above));
          expect(names.of(zone)).to.deep.equal({
            domain: zone,
            zone: parent === undefined ? null : { name: above, server: parent.server },
          });
        });
      }
    }
  });

  it('keeps the ICANN registrable name under ordinary second levels and platform suffixes', () => {
    expect(names.of('www.example.co.uk')).to.deep.equal({ domain: 'example.co.uk', zone: null });
    expect(names.of('shop.example.com')).to.deep.equal({ domain: 'example.com', zone: null });
    // github.io is in the private section of the List, but GitHub runs no registry: github.io is the registration.
    expect(names.of('someone.github.io')).to.deep.equal({ domain: 'github.io', zone: null });
    expect(names.of('localhost')).to.deep.equal({ domain: 'localhost', zone: null });
  });

  it('looks names up under the zones of the issue as themselves', () => {
    expect(names.of('bestb.uy.com').domain).to.equal('bestb.uy.com');
    expect(names.of('www.coco.co.pl')).to.deep.equal({ domain: 'coco.co.pl', zone: { name: 'co.pl', server: 'whois.co.pl' } });
    expect(names.of('dr-x.chirurgiens-dentistes.fr').zone?.server).to.equal('whois.smallregistry.net');
  });

  it("asks a registry's zones under its own zone of that registry: eu.org's country zones", () => {
    expect(names.of('www.foo.asso.eu.org')).to.deep.equal({
      domain: 'foo.asso.eu.org',
      zone: { name: 'asso.eu.org', server: 'whois.eu.org' },
    });
    expect(names.of('www.foo.eu.org').domain).to.equal('foo.eu.org');
    expect(names.of('asso.eu.org')).to.deep.equal({ domain: 'asso.eu.org', zone: { name: 'eu.org', server: 'whois.eu.org' } });
  });

  it("keeps a suffix that the List's private section names under a zone, when the table does not list it", () => {
    // Only eu.org of EU.org's zones: the List (tldts's copy) still cuts `foo.asso.eu.org` whole.
    const table = new WhoisNames([{ server: 'whois.eu.org', zones: ['eu.org'] }]);
    expect(table.of('www.foo.asso.eu.org')).to.deep.equal({
      domain: 'foo.asso.eu.org',
      zone: { name: 'eu.org', server: 'whois.eu.org' },
    });
  });

  it('takes the longest zone, from the table it is given', () => {
    const table = new WhoisNames([
      { server: 'whois.zone.test', zones: ['zone.test'] },
      { server: 'whois.deep.test:4343', zones: ['deep.zone.test'] },
    ]);
    expect(table.of('a.b.deep.zone.test')).to.deep.equal({
      domain: 'b.deep.zone.test',
      zone: { name: 'deep.zone.test', server: 'whois.deep.test:4343' },
    });
    expect(table.of('a.b.zone.test').zone?.server).to.equal('whois.zone.test');
    expect(table.of('bestb.uy.com').zone).to.equal(null);
  });
});
