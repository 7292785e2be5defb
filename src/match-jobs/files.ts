/**
 * Where a match job's rows live: one folder per job under MATCH_JOBS_DIR (a volume the API
 * and every worker share), holding
 *
 *   input.jsonl    the upload, one line per row (./upload.ts), written once by the API
 *   results.jsonl  one line per answered row, in input order, appended chunk by chunk by the
 *                  worker; only its first `resultsBytes` bytes (the job's state) count
 *
 * Files rather than Redis: a million rows with addresses are a few hundred MB per job, which
 * Redis would hold in memory beside the credits and the queue; a file is streamed in both
 * directions and read back from any offset.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';

export interface JobFiles {
  dir: string;
  input: string;
  results: string;
}

const jobIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Job ids are the API's own UUIDs; anything else names no job (and no folder). */
export function isJobId(id: string): boolean {
  return jobIdPattern.test(id);
}

export function jobFiles(root: string, id: string): JobFiles {
  if (!isJobId(id)) throw new Error('not a job id');
  const dir = path.join(root, id);
  return { dir, input: path.join(dir, 'input.jsonl'), results: path.join(dir, 'results.jsonl') };
}

export async function makeJobDir(files: JobFiles): Promise<void> {
  await mkdir(files.dir, { recursive: true });
}

export async function removeJobDir(files: JobFiles): Promise<void> {
  await rm(files.dir, { recursive: true, force: true });
}

export interface Line {
  text: string;
  /** Bytes of the line with its newline. */
  bytes: number;
}

/**
 * The complete lines of `file` from byte `start`, while `more(lines so far)` says so (the
 * line that makes it false is the last one taken). Reads only as far as needed.
 */
export async function readLinesFrom(
  file: string,
  start: number,
  more: (line: Line, taken: number) => boolean,
): Promise<Line[]> {
  const stream = createReadStream(file, { start, highWaterMark: 256 * 1024 });
  const lines: Line[] = [];
  let pending: Buffer[] = [];
  let pendingSize = 0;
  try {
    for await (const chunk of stream) {
      let buffer = chunk as Buffer;
      for (;;) {
        const newline = buffer.indexOf(0x0a);
        if (newline < 0) {
          pending.push(buffer);
          pendingSize += buffer.length;
          break;
        }
        const head = buffer.subarray(0, newline);
        const bytes = Buffer.concat([...pending, head], pendingSize + head.length);
        pending = [];
        pendingSize = 0;
        const line = { text: bytes.toString('utf8'), bytes: bytes.length + 1 };
        lines.push(line);
        if (!more(line, lines.length)) return lines;
        buffer = buffer.subarray(newline + 1);
      }
    }
    return lines;
  } finally {
    stream.destroy();
    if (!stream.closed) await once(stream, 'close').catch(() => {});
  }
}
