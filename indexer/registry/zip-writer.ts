/**
 * A small streaming zip writer (deflate, one pass, constant memory) for the registry generator
 * and the tests: the NTA publishes its files as zip archives, and no zip writer is a dependency.
 * Each entry's sizes and CRC-32 follow its data in a data descriptor (general-purpose flag bit
 * 3), so nothing is buffered; the central directory at the end repeats them, which is what a
 * reader such as yauzl goes by. No ZIP64: an entry and the archive stay under 4 GiB (the
 * nationwide file of about five million rows is under 2 GiB unpacked).
 *
 *   const zip = new ZipWriter(createWriteStream('13_tokyo_all_20261031.zip'));
 *   await zip.add('13_tokyo_all_20261031.csv', rowsAsBufferChunks);
 *   await zip.finish();
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';

interface CentralEntry {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

const limit = 0xffff_ffff;
/** bit 3: sizes in a data descriptor; bit 11: the file name is UTF-8 */
const flags = 0x0008 | 0x0800;
/** 2026-01-01 00:00 in MS-DOS form (a fixed time keeps generated archives byte for byte the same) */
const dosTime = 0;
const dosDate = ((2026 - 1980) << 9) | (1 << 5) | 1;

export class ZipWriter {
  private offset = 0;
  private readonly entries: CentralEntry[] = [];

  constructor(private readonly out: Writable) {}

  private async write(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  /** One entry, deflated from `chunks` as they come. */
  async add(fileName: string, chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    const name = Buffer.from(fileName, 'utf8');
    const offset = this.offset;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    header.writeUInt16LE(flags, 6);
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt16LE(dosTime, 10);
    header.writeUInt16LE(dosDate, 12);
    // CRC and sizes (14-25) stay 0: they follow in the data descriptor
    header.writeUInt16LE(name.length, 26);
    await this.write(Buffer.concat([header, name]));

    let crc = 0;
    let size = 0;
    let compressed = 0;
    const deflate = createDeflateRaw({ level: 6 });
    const drained = (async () => {
      for await (const piece of deflate) {
        compressed += (piece as Buffer).length;
        await this.write(piece as Buffer);
      }
    })();
    for await (const chunk of chunks) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      if (!deflate.write(chunk)) await once(deflate, 'drain');
    }
    deflate.end();
    await drained;
    if (size > limit || compressed > limit || this.offset > limit)
      throw new Error(`${fileName}: over 4 GiB, which needs ZIP64 (not written here)`);

    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    await this.write(descriptor);
    this.entries.push({ name, crc: crc >>> 0, compressed, size, offset });
  }

  /** The central directory and its end record; ends the output stream. */
  async finish(): Promise<void> {
    const start = this.offset;
    for (const entry of this.entries) {
      const record = Buffer.alloc(46);
      record.writeUInt32LE(0x02014b50, 0);
      record.writeUInt16LE(20, 4); // made by: 2.0
      record.writeUInt16LE(20, 6);
      record.writeUInt16LE(flags, 8);
      record.writeUInt16LE(8, 10);
      record.writeUInt16LE(dosTime, 12);
      record.writeUInt16LE(dosDate, 14);
      record.writeUInt32LE(entry.crc, 16);
      record.writeUInt32LE(entry.compressed, 20);
      record.writeUInt32LE(entry.size, 24);
      record.writeUInt16LE(entry.name.length, 28);
      record.writeUInt32LE(entry.offset, 42);
      await this.write(Buffer.concat([record, entry.name]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    await this.write(end);
    this.out.end();
    await finished(this.out);
  }
}
