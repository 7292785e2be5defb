/**
 * What the importer reads: the arguments of `import:registry` turned into byte sources.
 *
 *   13_tokyo_all_20261031.csv   the file itself
 *   00_zenkoku_all_20261031.zip every CSV entry inside, in name order, each streamed out of the
 *                               archive (yauzl: the central directory is read, never the whole
 *                               archive), one after another: constant memory at any size
 *   -                           standard input (a pipe, e.g. `unzip -p x.zip | … -`); no checkpoint
 *
 * A source names itself for checkpoints, the summary and the dead letter: a file by its path, a
 * zip entry as `archive.zip!entry.csv`, so a stopped run resumes at the entry and record where it
 * stopped (import.ts skips the records before its checkpoint).
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';

/** What identifies a source for its checkpoint: a changed file (new size, time or head) starts over. */
export interface FileIdentity {
  /** the file's absolute path; for a zip entry `<archive path>!<entry name>` */
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 of the first 64 KiB (of the unpacked entry, for a zip) */
  headSha256: string;
}

export interface RegistrySource {
  /** the argument as given, with `!entry` for a zip entry: what the summary shows */
  name: string;
  /** the dead letter's `source` prefix: the file name, or `archive.zip!entry.csv` */
  label: string;
  /** undefined for standard input: it is read once, never resumed */
  identity: FileIdentity | undefined;
  /** bytes to read (the progress bar); 0 when not known */
  size: number;
  /** up to the first 64 KiB (the encoding is told from them) */
  head: Buffer;
  /** the bytes, from the start */
  open(): AsyncIterable<Buffer>;
}

const headBytes = 65_536;

async function readUpTo(chunks: AsyncIterable<Buffer>, bytes: number): Promise<Buffer> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    kept.push(chunk);
    size += chunk.length;
    if (size >= bytes) break;
  }
  return Buffer.concat(kept, size).subarray(0, bytes);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export async function fileIdentity(file: string): Promise<FileIdentity> {
  const absolute = path.resolve(file);
  const stat = statSync(absolute);
  const head = await readUpTo(createReadStream(absolute, { start: 0, end: headBytes - 1 }), headBytes);
  return { path: absolute, size: stat.size, mtimeMs: stat.mtimeMs, headSha256: sha256(head) };
}

async function fileSource(file: string): Promise<RegistrySource> {
  const identity = await fileIdentity(file);
  return {
    name: file,
    label: path.basename(file),
    identity,
    size: identity.size,
    head: await readUpTo(createReadStream(identity.path, { start: 0, end: headBytes - 1 }), headBytes),
    open: () => createReadStream(identity.path, { highWaterMark: 256 * 1024 }),
  };
}

/** Standard input: the head read for the encoding is given again first. */
async function stdinSource(): Promise<RegistrySource> {
  const input = process.stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const taken: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (!ended && size < headBytes) {
    const next = await input.next();
    if (next.done) ended = true;
    else {
      taken.push(next.value);
      size += next.value.length;
    }
  }
  return {
    name: '-',
    label: 'stdin',
    identity: undefined,
    size: 0,
    head: Buffer.concat(taken, size).subarray(0, headBytes),
    open: async function* () {
      yield* taken.splice(0);
      if (ended) return;
      for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
    },
  };
}

export const isZip = (file: string) => /\.zip$/i.test(file);

/** The CSV entries of an archive, in name order (folders and other files are left out). */
async function zipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  for await (const entry of zip.eachEntry()) if (/\.csv$/i.test(entry.fileName)) entries.push(entry);
  return entries.sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
}

async function entrySource(
  file: string,
  zip: yauzl.ZipFile,
  entry: yauzl.Entry,
  mtimeMs: number,
): Promise<RegistrySource> {
  const open = async function* (): AsyncGenerator<Buffer> {
    const stream = await zip.openReadStreamPromise(entry);
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } finally {
      stream.destroy();
    }
  };
  const head = await readUpTo(open(), headBytes);
  return {
    name: `${file}!${entry.fileName}`,
    label: `${path.basename(file)}!${entry.fileName}`,
    identity: {
      path: `${path.resolve(file)}!${entry.fileName}`,
      size: entry.uncompressedSize,
      mtimeMs,
      headSha256: sha256(head),
    },
    size: entry.uncompressedSize,
    head,
    open,
  };
}

/**
 * The sources of one argument, in order. A zip stays open while its entries are read and is
 * closed after the last (or when the caller stops early).
 */
export async function* registrySources(file: string): AsyncGenerator<RegistrySource> {
  if (file === '-') {
    yield await stdinSource();
    return;
  }
  if (!isZip(file)) {
    yield await fileSource(file);
    return;
  }
  const zip = await yauzl.openPromise(file, { autoClose: false, strictFileNames: false });
  try {
    const mtimeMs = statSync(file).mtimeMs;
    for (const entry of await zipEntries(zip)) yield await entrySource(file, zip, entry, mtimeMs);
  } finally {
    zip.close();
  }
}
