import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../support/paths.js';
import type { WhoisFacts } from '../../../../lib/lookup/whois/record.js';
import { parseWhoisText, type WhoisReading } from '../../../../lib/lookup/whois/whois-text.js';

// One answer a registry layout, written after the registries' documentation and public examples
// (`test/fixtures/whois-layouts/`, names changed): each pins a class of docs/contract.md §10's new rows
// (the holder's organization, reserved names and "not registered" in the registry's words, the
// domain's own object, dotted layouts, statuses from every place) on the layout, not on one answer.

function answer(file: string): string {
  return readFileSync(join(projectRoot(), 'test', 'fixtures', 'whois-layouts', file), 'utf8');
}

function read(domain: string, file: string): WhoisFacts {
  const reading = parseWhoisText(domain, answer(file));
  if (reading.outcome !== 'registered') expect.fail(`${file} read as ${reading.outcome}`);
  return reading.facts;
}

function outcome(domain: string, file: string): WhoisReading['outcome'] {
  return parseWhoisText(domain, answer(file)).outcome;
}

describe("whois: the holder's organization, in each registry's layout", () => {
  for (const [layout, domain, file, organization] of [
    [
      'NIC.AT: the registrant handle names a contact object, objects with no blank line between them',
      'alpenblick-reisen.at',
      'at-objects.txt',
      'Alpenblick Reisen GmbH',
    ],
    [
      'AFNIC: holder-c names a nic-hdl object typed ORGANIZATION, whose contact is the name',
      'boulangerie-martin.fr',
      'fr-holder-object.txt',
      'Boulangerie Martin SARL',
    ],
    [
      'CZ.NIC: a lower-case registrant handle names a contact whose org: is the organization',
      'pekarna-novak.cz',
      'cz-contact-object.txt',
      'Pekarna Novak s.r.o.',
    ],
    ['NIC.LV: a [Holder] block typed Legal person', 'baltijas-koks.lv', 'lv-holder-type.txt', 'SIA Baltijas Koks'],
    ['DNS-LU: org-name under ownertype ORGANISATION', 'vinsmoselle.lu', 'lu-ownertype.txt', 'Domaines Vinsmoselle S.C.'],
    ["RIPN: the domain object's org:", 'sibirsky-med.ru', 'ru-org.txt', 'OOO "Sibirsky Med"'],
    ['JPRS in English: g. [Organization]', 'sakura-seika.co.jp', 'jp-co-organization.txt', 'Sakura Seika Co., Ltd.'],
    [
      'JPRS in Japanese: ｇ. [組織名] with full-width item letters',
      'sakura-seika.co.jp',
      'jp-co-japanese.txt',
      'さくら製菓株式会社',
    ],
    ['TM: Owner OrgName beside the owner’s name', 'ashgabat-textile.tm', 'tm-owner.txt', 'Ashgabat Textile Complex'],
    [
      'NIC.VE: the first line of the Titular: block, without its e-mail',
      'cacaodelsur.com.ve',
      've-titular.txt',
      'Cacao del Sur C.A.',
    ],
    ['Ukrainian registries: the block under a "% Registrant:" heading', 'kyiv-kava.com.ua', 'ua-objects.txt', 'Kyiv Kava LLC'],
  ] as const) {
    it(layout, () => {
      expect(read(domain, file).registrant.organization).to.equal(organization);
    });
  }

  for (const [layout, domain, file] of [
    ['a holder typed Natural person: a name alone is no organization', 'janis-ozols.lv', 'lv-holder-person.txt'],
    ['a contact with a name and no organization', 'mate-cocido.com.ar', 'ar-contact-after-domain.txt'],
    ['a placeholder ("Not shown, please visit …")', 'brouwerij-peeters.be', 'be-flags.txt'],
  ] as const) {
    it(`gives null for ${layout}`, () => {
      expect(read(domain, file).registrant.organization).to.equal(null);
    });
  }
});

describe("whois: the domain's own object", () => {
  it("NIC Argentina: the domain's registered:, not the created: of the contact and name servers written right under it", () => {
    const facts = read('mate-cocido.com.ar', 'ar-contact-after-domain.txt');
    expect(facts.createdAt).to.equal('2009-10-22T00:00:00.000Z');
    expect(facts.expiresAt).to.equal('2025-10-22T00:00:00.000Z');
    expect(facts.nameServers).to.deep.equal(['ns1.donweb.com', 'ns2.donweb.com']);
  });

  it("NIC.AT and CZ.NIC: the domain's dates, not its contacts' or its name-server set's", () => {
    expect(read('alpenblick-reisen.at', 'at-objects.txt').updatedAt).to.equal('2022-03-11T09:14:52.000Z');
    const cz = read('pekarna-novak.cz', 'cz-contact-object.txt');
    expect(cz).to.include({ createdAt: '2015-09-05T11:21:00.000Z', updatedAt: '2023-08-02T13:28:45.000Z' });
    expect(cz.nameServers).to.deep.equal(['ns.wedos.com', 'ns.wedos.net']);
  });

  it("Ukrainian registries: the contacts' status ok/linked and created: are not the domain's", () => {
    const facts = read('kyiv-kava.com.ua', 'ua-objects.txt');
    expect(facts.status).to.deep.equal(['clientTransferProhibited']);
    expect(facts.createdAt).to.equal('2015-02-11T08:41:03.000Z');
    expect(facts.registrar).to.equal('LLC "Ukrnames"');
  });

  it('Verisign listing several matching names first: the record of the domain itself', () => {
    const facts = read('koala.com', 'verisign-several-matches.txt');
    expect(facts.registrar).to.equal('NETWORK SOLUTIONS, LLC.');
    expect(facts.whoisServer).to.equal('whois.networksolutions.com');
    expect(facts.createdAt).to.equal('1994-05-12T00:00:00.000Z');
    expect(facts.nameServers).to.deep.equal(['ns1.koala.com', 'ns2.koala.com']);
  });

  it('a dotted layout: Activation:......, Name Server (DB):..., the registrar and not the dots', () => {
    const facts = read('lome-port.tg', 'tg-dotted.txt');
    expect(facts).to.include({
      registrar: 'CAFE Informatique',
      createdAt: '2011-08-16T00:00:00.000Z',
      expiresAt: '2026-08-15T00:00:00.000Z',
    });
    expect(facts.nameServers).to.deep.equal(['ns1.cafe.tg', 'ns2.cafe.tg']);
    expect(facts.status).to.deep.equal(['ok']); // `ACTIVE`, as the generic reading spells it
  });

  it('JPRS in Japanese: its own labels for the dates and name servers', () => {
    const facts = read('sakura-seika.co.jp', 'jp-co-japanese.txt');
    expect(facts.createdAt).to.equal('2004-03-12T00:00:00.000Z');
    expect(facts.nameServers).to.deep.equal(['ns1.sakura.ad.jp', 'ns2.sakura.ad.jp']);
  });
});

describe('whois: status from every place the registry puts it', () => {
  it('NIC.VE: Spanish labels for the dates, the status and the name servers', () => {
    const facts = read('cacaodelsur.com.ve', 've-titular.txt');
    expect(facts).to.include({ createdAt: '2009-03-06T00:00:00.000Z', expiresAt: '2026-03-06T00:00:00.000Z' });
    expect(facts.status).to.deep.equal(['activo']);
    expect(facts.nameServers).to.deep.equal(['ns1.cantv.net', 'ns2.cantv.net']);
  });

  it('DNS Belgium: the Flags: block, and not the notice under it', () => {
    const facts = read('brouwerij-peeters.be', 'be-flags.txt');
    expect(facts.status).to.deep.equal(['not available', 'clientTransferProhibited', 'serverDeleteProhibited']);
    expect(facts.nameServers).to.deep.equal(['ns1.combell.net', 'ns2.combell.net']);
  });
});

describe('whois: reserved names and "not registered" in the registry\'s words', () => {
  for (const [words, domain, file] of [
    ['a status "Reserved by Registry"', 'wine.kiwi', 'reserved-status.txt'],
    ['"Reserved by <registry>" alone', 'sport.asia', 'reserved-by.txt'],
    ['"in the reserved list"', 'beijing.cn', 'reserved-list.txt'],
    ['"registry reserved" in a notice', 'premium.tattoo', 'reserved-notice.txt'],
    ['"restricted from registration"', 'airport.aero', 'restricted.txt'],
  ] as const) {
    it(`reads ${words} as held, with the status "reserved"`, () => {
      const facts = read(domain, file);
      expect(facts.status).to.include('reserved');
    });
  }

  for (const [words, domain, file] of [
    ['Spanish, NIC Argentina: "El dominio no se encuentra registrado"', 'no-hay.com.ar', 'ar-free.txt'],
    ['a bare "NOT FOUND"', 'nothing-here.tm', 'bare-not-found.txt'],
    ['CZ.NIC: "%ERROR:101: no entries found"', 'nothing-here.cz', 'cz-free.txt'],
  ] as const) {
    it(`reads ${words} as a free name`, () => {
      expect(outcome(domain, file)).to.equal('free');
    });
  }

  it('reads an answer that names the domain and says something of it as held, never as nothing', () => {
    expect(outcome('obscure-layout.xy', 'names-domain.txt')).to.equal('registered');
  });

  it('still reads an answer that names nothing as nothing', () => {
    expect(parseWhoisText('obscure-layout.xy', 'Welcome to the whois server.\n').outcome).to.equal('empty');
    expect(parseWhoisText('obscure-layout.xy', 'Error for "obscure-layout.xy": invalid name.\n').outcome).to.equal('empty');
  });
});
