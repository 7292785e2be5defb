/**
 * The start-up sample's files (sample-data/sample-files.ts): generated into an empty folder,
 * kept while they are of the asked seed and size and at most a week old, generated again
 * otherwise. A kept folder is not written at all (`npm start` then loads what is there).
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSampleFiles } from '../../sample-data/index.js';

const size = { companies: 20, jobs: 60, seed: 5 };

function meta(dir: string): { seed: number; companies: number; jobs: number; now: string } {
  return JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
}

describe('ensureSampleFiles', () => {
  it('generates into an empty folder, keeps a recent set of the same size, regenerates otherwise', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sample-files-'));
    const made = await ensureSampleFiles(dir, size);
    expect(made.files.map((file) => path.basename(file))).toEqual(['corporates.ndjson', 'jobs.ndjson']);
    expect(made.generatedMs).toEqual(expect.any(Number));
    expect(meta(dir)).toMatchObject(size);
    expect(
      readFileSync(made.files[1] as string, 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(size.jobs);
    const written = statSync(made.files[0] as string).mtimeMs;

    const kept = await ensureSampleFiles(dir, size);
    expect(kept).toEqual({ files: made.files, generatedMs: null });
    expect(statSync(made.files[0] as string).mtimeMs).toBe(written);

    // another seed, another size: made again, and the folder says so
    expect((await ensureSampleFiles(dir, { ...size, seed: 6 })).generatedMs).toEqual(expect.any(Number));
    expect(meta(dir).seed).toBe(6);
    expect((await ensureSampleFiles(dir, { ...size, seed: 6, jobs: 61 })).generatedMs).toEqual(
      expect.any(Number),
    );
    expect(
      readFileSync(made.files[1] as string, 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(61);

    // older than a week: made again, dated today
    writeFileSync(
      path.join(dir, 'meta.json'),
      JSON.stringify({ ...meta(dir), now: new Date(Date.now() - 8 * 86_400_000).toISOString() }),
    );
    expect((await ensureSampleFiles(dir, { ...size, seed: 6, jobs: 61 })).generatedMs).toEqual(
      expect.any(Number),
    );
    expect(Date.now() - Date.parse(meta(dir).now)).toBeLessThan(2 * 86_400_000);
  });
});
