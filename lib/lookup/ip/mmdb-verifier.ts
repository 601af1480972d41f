import { setImmediate as nextTurn } from 'node:timers/promises';

/** `\xAB\xCD\xEF` + `MaxMind.com`: where the metadata of a MaxMind DB starts. */
const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
const DATA_SEPARATOR_BYTES = 16;
const MAX_DEPTH = 32;

/** What {@link verifyMmdb} needs to know of the file's metadata. */
export interface MmdbLayout {
  /** Number of nodes of the search tree. */
  nodeCount: number;
  /** 24, 28 or 32 bits per record. */
  recordSize: number;
}

/** Settings of {@link verifyMmdb}. */
export interface MmdbVerifyOptions {
  /**
   * Bytes of the file checked between two turns of the event loop, so that other requests are served
   * while a large file is checked.
   * @default 65536
   */
  chunkBytes?: number;
}

const DEFAULT_CHUNK_BYTES = 64 * 1024;

/**
 * Checks that a MaxMind DB file is well formed, the way MaxMind's own verifiers do: every record of the
 * search tree points to a node, to "no data" or into the data section; the data section is a sequence
 * of well-formed values (a double is 8 bytes, a float 4, integers no wider than their type, map keys
 * are strings, pointers stay inside the section, nothing runs past its end). The maxmind package
 * decodes whatever it finds, so a malformed file would otherwise give wrong answers instead of an error.
 * Linear in the file's size, and gives the event loop a turn after every `chunkBytes` checked.
 * @throws Error (as a rejection) naming the first problem found.
 */
export async function verifyMmdb(db: Buffer, layout: MmdbLayout, options: MmdbVerifyOptions = {}): Promise<void> {
  const { nodeCount, recordSize } = layout;
  const chunkBytes = Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const nodeBytes = recordSize / 4;
  const treeBytes = nodeCount * nodeBytes;
  const markerAt = db.lastIndexOf(METADATA_MARKER);
  if (markerAt < 0) throw new Error('no metadata marker');
  const dataStart = treeBytes + DATA_SEPARATOR_BYTES;
  if (dataStart > markerAt) throw new Error('the search tree runs past the data section');
  for (let i = treeBytes; i < dataStart; i++) {
    if (db[i] !== 0) throw new Error('the data section separator is not 16 zero bytes');
  }
  const dataSize = markerAt - dataStart;

  const checkRecord = (record: number, node: number): void => {
    if (record <= nodeCount) return;
    if (record - nodeCount < DATA_SEPARATOR_BYTES) throw new Error(`node ${node} points into the data section separator`);
    if (record - nodeCount - DATA_SEPARATOR_BYTES >= dataSize) throw new Error(`node ${node} points past the data section`);
  };
  const nodesPerChunk = Math.max(1, Math.floor(chunkBytes / nodeBytes));
  for (let node = 0, offset = 0; node < nodeCount; node++, offset += nodeBytes) {
    if (node % nodesPerChunk === nodesPerChunk - 1) await nextTurn();
    if (recordSize === 24) {
      checkRecord(db.readUIntBE(offset, 3), node);
      checkRecord(db.readUIntBE(offset + 3, 3), node);
    } else if (recordSize === 28) {
      const middle = db[offset + 3]!;
      checkRecord((middle & 0xf0) * 2 ** 20 + db.readUIntBE(offset, 3), node);
      checkRecord((middle & 0x0f) * 2 ** 24 + db.readUIntBE(offset + 4, 3), node);
    } else {
      checkRecord(db.readUInt32BE(offset), node);
      checkRecord(db.readUInt32BE(offset + 4), node);
    }
  }

  const data = db.subarray(dataStart, markerAt);
  let offset = 0;
  let checked = 0;
  while (offset < data.length) {
    offset = skipValue(data, offset, 0);
    if (offset - checked >= chunkBytes) {
      checked = offset;
      await nextTurn();
    }
  }
}

const POINTER_BASES = [0, 2048, 526336, 0] as const;
/** Largest payload of each fixed-width type, by type number (0: no limit, -1: not a fixed-width type). */
const WIDTHS = [-1, -1, 0, 8, 0, 2, 4, -1, 4, 8, 16, -1, -1, -1, -1, 4] as const;
/** The names of those types, by type number, for messages. */
const NAMES: Readonly<Record<number, string>> = {
  2: 'string',
  3: 'double',
  4: 'byte string',
  5: 'uint16',
  6: 'uint32',
  8: 'int32',
  9: 'uint64',
  10: 'uint128',
  15: 'float',
};

/** Checks the value at `start` of the data section and returns where the next one starts. */
function skipValue(data: Buffer, start: number, depth: number): number {
  if (depth > MAX_DEPTH) throw new Error(`values nested deeper than ${MAX_DEPTH} at data offset ${start}`);
  const end = data.length;
  let offset = start;
  if (offset >= end) throw runsPast(start);
  const control = data[offset++]!;
  let type = control >> 5;
  if (type === 1) {
    const sizeBits = (control >> 3) & 3;
    if (offset + sizeBits + 1 > end) throw runsPast(start);
    let pointer = sizeBits === 3 ? 0 : control & 7;
    for (let i = 0; i <= sizeBits; i++) pointer = pointer * 256 + data[offset++]!;
    pointer += POINTER_BASES[sizeBits]!;
    if (pointer >= end) throw new Error(`a pointer leaves the data section at data offset ${start}`);
    return offset;
  }
  if (type === 0) {
    if (offset >= end) throw runsPast(start);
    type = 7 + data[offset++]!;
    if (type < 8 || type > 15) throw new Error(`unknown extended type ${type} at data offset ${start}`);
  }
  let size = control & 31;
  if (size >= 29) {
    const extra = size - 28;
    if (offset + extra > end) throw runsPast(start);
    if (size === 29) size = 29 + data[offset]!;
    else if (size === 30) size = 285 + data[offset]! * 256 + data[offset + 1]!;
    else size = 65821 + data[offset]! * 65536 + data[offset + 1]! * 256 + data[offset + 2]!;
    offset += extra;
  }

  if (type === 7) {
    for (let i = 0; i < size; i++) {
      const keyType = (data[offset] ?? 0) >> 5;
      if (keyType !== 2 && keyType !== 1) throw new Error(`a map key that is not a string at data offset ${offset}`);
      offset = skipValue(data, offset, depth + 1);
      offset = skipValue(data, offset, depth + 1);
    }
    return offset;
  }
  if (type === 11) {
    for (let i = 0; i < size; i++) offset = skipValue(data, offset, depth + 1);
    return offset;
  }
  if (type === 14) {
    if (size > 1) throw new Error(`a boolean of value ${size} at data offset ${start}`);
    return offset;
  }
  const width = WIDTHS[type] ?? -1;
  if (width < 0) throw new Error(`a value of reserved type ${type} at data offset ${start}`);
  if ((type === 3 || type === 15) && size !== width) throw new Error(`a ${NAMES[type]} of ${size} bytes at data offset ${start}`);
  if (width > 0 && size > width) throw new Error(`a ${NAMES[type]} of ${size} bytes at data offset ${start}`);
  if (offset + size > end) throw runsPast(start);
  return offset + size;
}

function runsPast(start: number): Error {
  return new Error(`a value runs past the data section at data offset ${start}`);
}
