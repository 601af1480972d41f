import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RrsigData } from 'dns-packet';
import type { DnsRecords, DnsZone } from './dns-server.js';

const run = promisify(execFile);

/** Whether `ldns-keygen` and `ldns-signzone` (Debian's `ldnsutils`) can be run. */
export async function ldnsAvailable(): Promise<boolean> {
  try {
    await Promise.all([run('ldns-keygen', ['-v']), run('ldns-signzone', ['-v'])]);
    return true;
  } catch {
    return false;
  }
}

/** A zone signed by ldns-signzone: its records, and the DS of its key-signing key, for the parent to serve. */
export interface SignedZone {
  zone: DnsZone;
  /** The DS record line (`name. IN DS tag alg type digest`), as ldns-keygen writes it. */
  ds: string;
}

/**
 * Signs a zone for a test: a key-signing and a zone-signing key (ECDSA P-256) made by `ldns-keygen`,
 * the zone signed by `ldns-signzone` (NSEC), and its output read back as a {@link DnsZone}.
 * @param origin the zone's apex, `''` for the root.
 * @param text the zone file, with `$ORIGIN` and `$TTL`.
 */
export async function signZone(origin: string, text: string): Promise<SignedZone> {
  const dir = await mkdtemp(join(tmpdir(), 'dossier-zone-'));
  try {
    const apex = origin === '' ? '.' : origin;
    const keygen = async (ksk: boolean): Promise<string> =>
      (await run('ldns-keygen', ['-a', 'ECDSAP256SHA256', ...(ksk ? ['-k'] : []), apex], { cwd: dir })).stdout.trim();
    const ksk = await keygen(true);
    const zsk = await keygen(false);
    await writeFile(join(dir, 'zone'), text);
    const { stdout } = await run('ldns-signzone', ['-f', '-', 'zone', ksk, zsk], { cwd: dir });
    const ds = (await readFile(join(dir, `${ksk}.ds`), 'utf8')).trim();
    return { zone: parseZone(stdout), ds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Zones laid over one another (a parent's DS and delegation beside its child's apex records). */
export function mergeZones(...zones: DnsZone[]): DnsZone {
  const merged: DnsZone = {};
  for (const zone of zones) {
    for (const [name, records] of Object.entries(zone)) {
      const into = (merged[name] ??= {}) as Record<string, unknown>;
      for (const [type, value] of Object.entries(records)) {
        if (!Array.isArray(value)) into[type] = value;
        else if (type === 'NS')
          into[type] = [...new Set([...((into[type] as string[] | undefined) ?? []), ...(value as string[])])];
        else into[type] = [...((into[type] as unknown[] | undefined) ?? []), ...value];
      }
    }
  }
  return merged;
}

/**
 * Reads the master-file lines ldns writes (one record a line: owner, TTL, class, type, data; fully
 * qualified) into a {@link DnsZone}. Types the test server does not serve (NSEC, NSEC3PARAM) are left out.
 */
export function parseZone(text: string): DnsZone {
  const zone: DnsZone = {};
  for (const line of text.split('\n')) {
    const fields = tokens(line);
    if (fields.length < 5 || line.startsWith('$')) continue;
    const [owner, ttl, , type, ...data] = fields as [string, string, string, string, ...string[]];
    const name = bare(owner);
    const records = (zone[name] ??= {}) as DnsRecords;
    const add = <K extends keyof DnsRecords>(key: K, value: NonNullable<DnsRecords[K]> extends (infer T)[] ? T : never): void => {
      ((records[key] ??= [] as never) as unknown[]).push(value);
    };
    switch (type) {
      case 'A':
      case 'AAAA':
        add(type, { address: data[0]!, ttl: Number(ttl) });
        break;
      case 'NS':
        add('NS', bare(data[0]!));
        break;
      case 'MX':
        add('MX', { priority: Number(data[0]), exchange: bare(data[1]!) });
        break;
      case 'TXT':
        add('TXT', data);
        break;
      case 'CNAME':
        records.CNAME = bare(data[0]!);
        break;
      case 'SOA':
        records.SOA = {
          nsname: bare(data[0]!),
          hostmaster: bare(data[1]!),
          serial: Number(data[2]),
          refresh: Number(data[3]),
          retry: Number(data[4]),
          expire: Number(data[5]),
          minttl: Number(data[6]),
        };
        break;
      case 'CAA':
        add('CAA', { flags: Number(data[0]), tag: data[1]!, value: data[2]! });
        break;
      case 'DNSKEY':
        add('DNSKEY', { flags: Number(data[0]), algorithm: Number(data[2]), key: Buffer.from(data.slice(3).join(''), 'base64') });
        break;
      case 'DS':
        add('DS', {
          keyTag: Number(data[0]),
          algorithm: Number(data[1]),
          digestType: Number(data[2]),
          digest: Buffer.from(data.slice(3).join(''), 'hex'),
        });
        break;
      case 'RRSIG':
        add('RRSIG', rrsig(data));
        break;
      default:
        break;
    }
  }
  return zone;
}

function rrsig(data: string[]): RrsigData {
  const [typeCovered, algorithm, labels, originalTTL, expiration, inception, keyTag, signersName, ...signature] = data;
  return {
    typeCovered: typeCovered!,
    algorithm: Number(algorithm),
    labels: Number(labels),
    originalTTL: Number(originalTTL),
    expiration: epochSeconds(expiration!),
    inception: epochSeconds(inception!),
    keyTag: Number(keyTag),
    signersName: signersName === '.' ? '.' : bare(signersName!),
    signature: Buffer.from(signature.join(''), 'base64'),
  };
}

/** `YYYYMMDDHHmmSS` (UTC), as RRSIG writes its dates, in seconds since 1970. */
function epochSeconds(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!m) return Number(stamp);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
}

/** The fields of a line, quoted strings unquoted, a `;` comment dropped. */
function tokens(line: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(;.*$)|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    if (match[2] !== undefined) break;
    out.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[3]!);
  }
  return out;
}

function bare(name: string): string {
  return name === '.' ? '' : name.toLowerCase().replace(/\.$/, '');
}
