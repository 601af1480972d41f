import ipaddr from 'ipaddr.js';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A small writer of the MaxMind DB format (https://maxmind.github.io/MaxMind-DB/), for test fixtures:
 * a binary search tree of 24-, 28- or 32-bit records, a data section of type-tagged values (maps,
 * UTF-8 strings, unsigned and signed integers, doubles, floats, booleans, arrays, with repeated values
 * written once and reached through pointers), and the metadata after the `\xAB\xCD\xEFMaxMind.com` marker.
 */

/** A number written with an explicit MaxMind type instead of the one {@link writeMmdb} would pick. */
export class MmdbTyped {
  constructor(
    readonly type: 'double' | 'float' | 'uint16' | 'uint32' | 'uint64' | 'uint128' | 'int32',
    readonly value: number | bigint,
  ) {}
}

/**
 * A value of the data section. Strings are UTF-8 strings; a non-negative integer is a uint32 (uint64
 * beyond), a negative one an int32, any other number a double; a bigint is a uint64; use
 * {@link MmdbTyped} to choose.
 */
export type MmdbValue = string | number | bigint | boolean | MmdbTyped | Buffer | MmdbValue[] | { [key: string]: MmdbValue };

/** One network and its record. IPv4 networks in an IPv6 tree are stored at `::a.b.c.d/96+n`, as MaxMind does. */
export interface MmdbNetwork {
  /** CIDR: `81.2.69.0/24`, `2a02:cf40::/29`. */
  network: string;
  data: MmdbValue;
}

/** Metadata and layout of a database. */
export interface MmdbWriterOptions {
  /** `database_type`: `GeoIP2-City`, `GeoLite2-ASN`, … */
  databaseType: string;
  /** @default 6 */
  ipVersion?: 4 | 6;
  /** Bits per record; the smallest that fits when absent. */
  recordSize?: 24 | 28 | 32;
  /** @default ['en'] */
  languages?: string[];
  /** @default { en: 'Dossier test database' } */
  description?: Record<string, string>;
  /** Unix seconds. @default 1_700_000_000 */
  buildEpoch?: number;
  /** Write each repeated value once and point to it. @default true */
  pointers?: boolean;
}

/** The largest size a control byte can express: 65821 + 2^24 - 1. */
const MAX_SIZE = 16_843_036;

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

interface TreeNode {
  children: [Child, Child];
}
type Child = TreeNode | { data: number } | null;

/** Writes a MaxMind DB holding `networks` (later, longer prefixes win inside shorter ones). */
export function writeMmdb(networks: MmdbNetwork[], options: MmdbWriterOptions): Buffer {
  const ipVersion = options.ipVersion ?? 6;
  const data = new DataSection(options.pointers ?? true);
  const root: TreeNode = { children: [null, null] };
  const sorted = networks
    .map((entry) => ({ ...entry, bits: toBits(entry.network, ipVersion) }))
    .sort((x, y) => x.bits.length - y.bits.length);
  for (const { bits, data: value } of sorted) insert(root, bits, { data: data.add(value) });

  const nodes: TreeNode[] = [];
  const numbering = new Map<TreeNode, number>();
  const queue: TreeNode[] = [root];
  while (queue.length > 0) {
    const node = queue.shift()!;
    numbering.set(node, nodes.length);
    nodes.push(node);
    for (const child of node.children) if (child !== null && 'children' in child) queue.push(child);
  }
  const nodeCount = nodes.length;
  const dataBytes = data.bytes();
  const largest = nodeCount + 16 + dataBytes.length;
  const recordSize = options.recordSize ?? (largest < 2 ** 24 ? 24 : largest < 2 ** 28 ? 28 : 32);
  if (largest >= 2 ** recordSize) throw new Error(`${recordSize}-bit records cannot address ${largest}`);
  const recordOf = (child: Child): number =>
    child === null ? nodeCount : 'children' in child ? numbering.get(child)! : nodeCount + 16 + child.data;

  const nodeBytes = recordSize / 4;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  nodes.forEach((node, index) => {
    const offset = index * nodeBytes;
    const left = recordOf(node.children[0]);
    const right = recordOf(node.children[1]);
    if (recordSize === 24) {
      tree.writeUIntBE(left, offset, 3);
      tree.writeUIntBE(right, offset + 3, 3);
    } else if (recordSize === 28) {
      tree.writeUIntBE(left & 0xffffff, offset, 3);
      tree[offset + 3] = (Math.floor(left / 2 ** 24) << 4) | Math.floor(right / 2 ** 24);
      tree.writeUIntBE(right & 0xffffff, offset + 4, 3);
    } else {
      tree.writeUInt32BE(left, offset);
      tree.writeUInt32BE(right, offset + 4);
    }
  });

  const metadata = new DataSection(false);
  metadata.add({
    node_count: new MmdbTyped('uint32', nodeCount),
    record_size: new MmdbTyped('uint16', recordSize),
    ip_version: new MmdbTyped('uint16', ipVersion),
    database_type: options.databaseType,
    languages: options.languages ?? ['en'],
    binary_format_major_version: new MmdbTyped('uint16', 2),
    binary_format_minor_version: new MmdbTyped('uint16', 0),
    build_epoch: new MmdbTyped('uint64', options.buildEpoch ?? 1_700_000_000),
    description: options.description ?? { en: 'Dossier test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), dataBytes, METADATA_MARKER, metadata.bytes()]);
}

/** The bits of a network's prefix, in the tree of `ipVersion`. */
function toBits(cidr: string, ipVersion: 4 | 6): number[] {
  const [address, length] = ipaddr.parseCIDR(cidr);
  let bytes = address.toByteArray();
  let prefix = length;
  if (address.kind() === 'ipv4' && ipVersion === 6) {
    bytes = [...Array<number>(12).fill(0), ...bytes];
    prefix += 96;
  } else if (address.kind() === 'ipv6' && ipVersion === 4) {
    throw new Error(`${cidr} does not fit an IPv4 tree`);
  }
  return Array.from({ length: prefix }, (_, i) => (bytes[i >> 3]! >> (7 - (i & 7))) & 1);
}

function insert(root: TreeNode, bits: number[], leaf: { data: number }): void {
  if (bits.length === 0) throw new Error('a network of prefix length 0 cannot be stored');
  let node = root;
  bits.forEach((bit, depth) => {
    const side = bit as 0 | 1;
    if (depth === bits.length - 1) {
      node.children[side] = leaf;
      return;
    }
    let child = node.children[side];
    // A shorter network already covers this path: split it so both halves keep its record.
    if (child === null || !('children' in child)) {
      child = { children: [child, child] };
      node.children[side] = child;
    }
    node = child;
  });
}

/** The data section: values written one after another, each at a known offset. */
class DataSection {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly seen = new Map<string, number>();

  constructor(private readonly pointers: boolean) {}

  /** Writes a value (or finds an equal one already written) and returns its offset in the section. */
  add(value: MmdbValue): number {
    const known = this.pointers ? this.seen.get(identity(value)) : undefined;
    if (known !== undefined) return known;
    const offset = this.size;
    this.write(value);
    return offset;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  private push(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.size += buffer.length;
  }

  private write(value: MmdbValue): void {
    const offset = this.size;
    if (Array.isArray(value)) {
      this.push(control(11, value.length));
      for (const item of value) this.writeChild(item);
    } else if (typeof value === 'object' && !(value instanceof MmdbTyped) && !Buffer.isBuffer(value)) {
      const entries = Object.entries(value);
      this.push(control(7, entries.length));
      for (const [key, item] of entries) {
        this.writeChild(key);
        this.writeChild(item);
      }
    } else {
      this.push(encodeScalar(value));
    }
    if (this.pointers && !this.seen.has(identity(value))) this.seen.set(identity(value), offset);
  }

  /** A value inside a map or array (map keys too): a pointer to an equal value written before, if any. */
  private writeChild(value: MmdbValue): void {
    const known = this.pointers ? this.seen.get(identity(value)) : undefined;
    if (known === undefined) this.write(value);
    else this.push(pointer(known));
  }
}

/** A text that two values share only when they are written the same way. */
function identity(value: MmdbValue): string {
  return JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
    const original = (this as Record<string, unknown>)[key];
    if (Buffer.isBuffer(original)) return `\u0000bytes:${createHash('sha256').update(original).digest('hex')}`;
    if (v instanceof MmdbTyped) return `\u0000${v.type}:${String(v.value)}`;
    if (typeof v === 'bigint') return `\u0000uint64:${String(v)}`;
    if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? `\u0000u:${v}` : `\u0000n:${v}`;
    return v;
  });
}

function encodeScalar(value: string | number | bigint | boolean | MmdbTyped | Buffer): Buffer {
  if (typeof value === 'string') return withControl(2, Buffer.from(value, 'utf8'));
  if (typeof value === 'boolean') return control(14, value ? 1 : 0);
  if (Buffer.isBuffer(value)) return withControl(4, value);
  if (typeof value === 'bigint') return encodeTyped(new MmdbTyped('uint64', value));
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return encodeTyped(new MmdbTyped(value < 2 ** 32 ? 'uint32' : 'uint64', value));
    if (Number.isInteger(value) && value >= -(2 ** 31)) return encodeTyped(new MmdbTyped('int32', value));
    return encodeTyped(new MmdbTyped('double', value));
  }
  return encodeTyped(value);
}

function encodeTyped({ type, value }: MmdbTyped): Buffer {
  switch (type) {
    case 'double': {
      const payload = Buffer.alloc(8);
      payload.writeDoubleBE(Number(value));
      return withControl(3, payload);
    }
    case 'float': {
      const payload = Buffer.alloc(4);
      payload.writeFloatBE(Number(value));
      return withControl(15, payload);
    }
    case 'int32': {
      const payload = Buffer.alloc(4);
      payload.writeInt32BE(Number(value));
      return withControl(8, payload);
    }
    default: {
      const typeNumber = { uint16: 5, uint32: 6, uint64: 9, uint128: 10 }[type];
      let n = BigInt(value);
      const bytes: number[] = [];
      while (n > 0n) {
        bytes.unshift(Number(n & 0xffn));
        n >>= 8n;
      }
      return withControl(typeNumber, Buffer.from(bytes));
    }
  }
}

function withControl(type: number, payload: Buffer): Buffer {
  return Buffer.concat([control(type, payload.length), payload]);
}

/** The control byte(s) of a value: type in the top 3 bits (extended types in a second byte), then the size. */
function control(type: number, size: number): Buffer {
  if (size > MAX_SIZE) throw new Error(`a value of ${size} bytes is larger than the format allows (${MAX_SIZE})`);
  const head = type <= 7 ? [type << 5] : [0, type - 7];
  let extra: number[] = [];
  let sizeBits = size;
  if (size >= 65821) {
    sizeBits = 31;
    const rest = size - 65821;
    extra = [(rest >> 16) & 255, (rest >> 8) & 255, rest & 255];
  } else if (size >= 285) {
    sizeBits = 30;
    const rest = size - 285;
    extra = [(rest >> 8) & 255, rest & 255];
  } else if (size >= 29) {
    sizeBits = 29;
    extra = [size - 29];
  }
  head[0]! |= sizeBits;
  return Buffer.from([...head, ...extra]);
}

function pointer(offset: number): Buffer {
  if (offset < 2048) return Buffer.from([0x20 | (offset >> 8), offset & 255]);
  if (offset < 526336) {
    const v = offset - 2048;
    return Buffer.from([0x28 | (v >> 16), (v >> 8) & 255, v & 255]);
  }
  if (offset < 134744064) {
    const v = offset - 526336;
    return Buffer.from([0x30 | (v >> 24), (v >> 16) & 255, (v >> 8) & 255, v & 255]);
  }
  const out = Buffer.alloc(5);
  out[0] = 0x38;
  out.writeUInt32BE(offset, 1);
  return out;
}

/** A GeoIP2 City record with English names, the shape MaxMind's City databases hold. */
export interface CityFixture {
  city?: string;
  region?: { name: string; code: string };
  country?: { name: string; code: string };
  continent?: { name: string; code: string };
  postalCode?: string;
  location?: { latitude: number; longitude: number; accuracyRadius: number; timeZone: string };
}

/** Builds a GeoIP2-City record (with a German name beside each English one, to check the language). */
export function cityRecord(fixture: CityFixture): MmdbValue {
  const names = (en: string): MmdbValue => ({ de: `${en} (de)`, en });
  const record: Record<string, MmdbValue> = {};
  if (fixture.city) record.city = { geoname_id: 1, names: names(fixture.city) };
  if (fixture.continent) record.continent = { code: fixture.continent.code, geoname_id: 2, names: names(fixture.continent.name) };
  if (fixture.country) {
    record.country = { geoname_id: 3, iso_code: fixture.country.code, names: names(fixture.country.name) };
    record.registered_country = record.country;
  }
  if (fixture.location) {
    const { latitude, longitude, accuracyRadius, timeZone } = fixture.location;
    record.location = {
      accuracy_radius: new MmdbTyped('uint16', accuracyRadius),
      latitude: new MmdbTyped('double', latitude),
      longitude: new MmdbTyped('double', longitude),
      time_zone: timeZone,
    };
  }
  if (fixture.postalCode) record.postal = { code: fixture.postalCode };
  if (fixture.region) record.subdivisions = [{ geoname_id: 4, iso_code: fixture.region.code, names: names(fixture.region.name) }];
  return record;
}

/** The networks of the fixture databases {@link writeGeoipFixtures} writes. */
export const GEOIP_FIXTURES = {
  city: [
    {
      network: '81.2.69.0/24',
      data: cityRecord({
        city: 'London',
        region: { name: 'England', code: 'ENG' },
        country: { name: 'United Kingdom', code: 'GB' },
        continent: { name: 'Europe', code: 'EU' },
        postalCode: 'EC1A',
        location: { latitude: 51.5142, longitude: -0.0931, accuracyRadius: 10, timeZone: 'Europe/London' },
      }),
    },
    {
      network: '2a02:cf40::/29',
      data: cityRecord({
        country: { name: 'Norway', code: 'NO' },
        continent: { name: 'Europe', code: 'EU' },
        location: { latitude: 62, longitude: 10, accuracyRadius: 100, timeZone: 'Europe/Oslo' },
      }),
    },
    {
      network: '175.16.199.0/24',
      data: cityRecord({
        city: 'Changchun',
        region: { name: 'Jilin Sheng', code: '22' },
        country: { name: 'China', code: 'CN' },
        continent: { name: 'Asia', code: 'AS' },
        location: { latitude: 43.88, longitude: 125.3228, accuracyRadius: 100, timeZone: 'Asia/Harbin' },
      }),
    },
  ],
  asn: [
    {
      network: '81.2.69.0/23',
      data: { autonomous_system_number: 20712, autonomous_system_organization: 'Andrews & Arnold Ltd' },
    },
    {
      network: '2a02:cf40::/32',
      data: { autonomous_system_number: 198411, autonomous_system_organization: 'Nordic Test Net AS' },
    },
    { network: '1.128.0.0/11', data: { autonomous_system_number: 1221, autonomous_system_organization: 'Telstra Pty Ltd' } },
  ],
} satisfies Record<string, MmdbNetwork[]>;

/** Paths of the fixture databases. */
export interface GeoipFixturePaths {
  /** A temporary folder holding them. */
  dir: string;
  /** `GeoIP2-City`, IPv6 tree with IPv4 networks at `::/96`. */
  city: string;
  /** `GeoLite2-ASN`, same layout. */
  asn: string;
}

/** Writes City and ASN fixture databases ({@link GEOIP_FIXTURES}) into a new temporary folder. */
export async function writeGeoipFixtures(): Promise<GeoipFixturePaths> {
  const dir = await mkdtemp(join(tmpdir(), 'dossier-mmdb-'));
  const city = join(dir, 'city.mmdb');
  const asn = join(dir, 'asn.mmdb');
  await writeFile(city, writeMmdb(GEOIP_FIXTURES.city, { databaseType: 'GeoIP2-City', languages: ['de', 'en'] }));
  await writeFile(asn, writeMmdb(GEOIP_FIXTURES.asn, { databaseType: 'GeoLite2-ASN' }));
  return { dir, city, asn };
}
