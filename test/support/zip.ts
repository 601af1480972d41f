import { inflateRawSync } from 'node:zlib';

/**
 * The files of a ZIP archive (an Office Open XML file is one), by name, read from its central directory:
 * stored and deflated entries, as every writer of .docx files makes them.
 * @throws Error for what is no ZIP archive, or uses another compression.
 */
export function unzip(archive: Buffer): Map<string, Buffer> {
  // The end of central directory record: its signature, searched from the end (a comment may follow it).
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a ZIP archive: no end of central directory');
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (archive.readUInt32LE(at) !== 0x02014b50) throw new Error('not a ZIP archive: bad central directory');
    const method = archive.readUInt16LE(at + 10);
    const compressed = archive.readUInt32LE(at + 20);
    const [nameLength, extraLength, commentLength] = [at + 28, at + 30, at + 32].map((offset) =>
      archive.readUInt16LE(offset),
    ) as [number, number, number];
    const local = archive.readUInt32LE(at + 42);
    const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const data = archive.subarray(start, start + compressed);
    if (method === 0) files.set(name, data);
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new Error(`${name}: compression method ${method} is not read here`);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}
