import { expect } from 'chai';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { compiledSchema } from '../../../lib/schemas/ajv.js';
import { wireIp, wireLookup, wireSsl, wireWhois } from '../../../adapters/http/lookup-shapes.js';
import { IpData, SslData, WhoisData } from '../../../adapters/http/schemas/shapes.js';
import type { DnsData as Dns, IpData as Ip, SslData as Ssl, WhoisData as Whois } from '../../../lib/index.js';

// The library's answers (camelCase) become interface A's records here: every field of the schema, in
// the schema's order (the order JSON.stringify writes, so the bytes on the wire), with the same values.

const whois: Whois = {
  domain: 'example.com',
  registered: true,
  registrar: 'Registrar A',
  registrarUrl: 'https://registrar.example',
  registrarIanaId: '292',
  registrarAbuseEmail: 'abuse@registrar.example',
  registrant: { organization: 'Example Org', countryCode: 'US' },
  createdAt: '1995-08-14T04:00:00.000Z',
  updatedAt: '2024-08-14T07:01:34.000Z',
  expiresAt: '2026-08-13T04:00:00.000Z',
  nameServers: ['a.iana-servers.net', 'b.iana-servers.net'],
  status: ['clientDeleteProhibited'],
  dnssec: true,
  whoisServer: 'whois.registrar.example',
  source: 'rdap',
  raw: null,
};

const ip: Ip = {
  ip: '81.2.69.142',
  version: 4,
  hostname: 'host142.example.test',
  isPrivate: false,
  city: 'London',
  region: 'England',
  regionCode: 'ENG',
  country: 'United Kingdom',
  countryCode: 'GB',
  continent: 'Europe',
  continentCode: 'EU',
  postalCode: 'EC1A',
  latitude: 51.5142,
  longitude: -0.0931,
  accuracyRadius: 10,
  timezone: 'Europe/London',
  asn: 20712,
  organization: 'Andrews & Arnold Ltd',
  isp: null,
  network: '81.2.69.142/31',
};

const leaf = {
  subject: { CN: 'example.com' },
  issuer: { CN: 'Test CA', O: ['Test', 'CA'] },
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: '2026-04-01T00:00:00.000Z',
  fingerprintSha256: 'AA:BB',
  daysRemaining: 30,
};
const intermediate = { ...leaf, subject: { CN: 'Test CA' }, validTo: '2026-03-01T00:00:00.000Z', daysRemaining: 2 };

const ssl: Ssl = {
  domain: 'example.com',
  subject: leaf.subject,
  issuer: leaf.issuer,
  validFrom: leaf.validFrom,
  validTo: leaf.validTo,
  daysRemaining: 30,
  isValid: false,
  authorizationError: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  hostnameMatches: true,
  subjectAltNames: ['example.com', 'www.example.com'],
  serialNumber: '0A1B',
  fingerprintSha256: 'AA:BB',
  signatureAlgorithm: 'sha256WithRSAEncryption',
  publicKey: { type: 'RSA', bits: 2048, curve: null },
  protocol: 'TLSv1.3',
  cipher: 'TLS_AES_256_GCM_SHA384',
  chain: [leaf, intermediate],
  expiresFirst: { subject: intermediate.subject, validTo: intermediate.validTo, daysRemaining: 2 },
};

/** The names of `value` and of the objects in it, as `path: names`, in the order JSON.stringify writes them. */
function namesOf(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => namesOf(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const names = Object.keys(value);
  return [
    `${path}: ${names.join(' ')}`,
    ...names.flatMap((name) => namesOf((value as Record<string, unknown>)[name], `${path}.${name}`)),
  ];
}

/** The names a schema gives the objects of `value`, the same way (records such as a distinguished name as they are). */
function schemaNamesOf(schema: TSchema, value: unknown, path = ''): string[] {
  if (schema.anyOf !== undefined) {
    const branch = (schema.anyOf as TSchema[]).find((option) => Value.Check(option, value));
    return branch === undefined ? [] : schemaNamesOf(branch, value, path);
  }
  if (schema.type === 'array' && Array.isArray(value))
    return value.flatMap((item, index) => schemaNamesOf(schema.items as TSchema, item, `${path}[${index}]`));
  if (schema.type === 'object' && schema.properties !== undefined) {
    const properties = schema.properties as Record<string, TSchema>;
    const names = Object.keys(properties);
    return [
      `${path}: ${names.join(' ')}`,
      ...names.flatMap((name) => schemaNamesOf(properties[name]!, (value as Record<string, unknown>)[name], `${path}.${name}`)),
    ];
  }
  return namesOf(value, path);
}

describe("interface A's records on the wire, from the library's answers", () => {
  for (const [kind, schema, wire] of [
    ['whois', WhoisData, wireWhois(whois)],
    ['ip', IpData, wireIp(ip)],
    ['ssl', SslData, wireSsl(ssl)],
  ] as const) {
    it(`puts every field of a ${kind} answer under its wire name, in the schema's order`, () => {
      const validate = compiledSchema(schema);
      expect(validate(wire), JSON.stringify(validate.errors)).to.equal(true);
      expect(namesOf(wire)).to.deep.equal(schemaNamesOf(schema, wire));
    });
  }

  it('keeps the values: each wire field is the library field of the same name in camelCase', () => {
    const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    const recase = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(recase)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([name, field]) => [camel(name), recase(field)]))
          : value;
    expect(recase(wireWhois(whois))).to.deep.equal(whois);
    expect(recase(wireIp(ip))).to.deep.equal(ip);
    expect(recase(wireSsl(ssl))).to.deep.equal(ssl);
  });

  it('sends a DNS answer as it is, and maps the others by kind', () => {
    const dns = { domain: 'example.com' } as Dns;
    expect(wireLookup('dns', dns)).to.equal(dns);
    expect(wireLookup('whois', whois)).to.deep.equal(wireWhois(whois));
    expect(wireLookup('ip', ip)).to.deep.equal(wireIp(ip));
    expect(wireLookup('ssl', ssl)).to.deep.equal(wireSsl(ssl));
  });
});
