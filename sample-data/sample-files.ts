/**
 * The start-up sample's files: a small data set (2,000 companies, 20,000 postings, fixed seed)
 * kept in a folder with a `meta.json` naming its seed, size and day. It is generated again when
 * missing, of another seed or size, or older than a week, so that the one-month window of
 * detail-text search keeps holding about a third of the postings. Loading it into the indices
 * is the indexer's part (indexer/sample-data.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateDataSet } from './generator.js';

export const sampleSize = { companies: 2000, jobs: 20_000, seed: 20261121 };
const maxAgeDays = 7;

export interface SampleSize {
  companies: number;
  jobs: number;
  seed: number;
}

interface SampleMeta extends SampleSize {
  now: string;
}

export interface SampleFiles {
  /** corporates.ndjson then jobs.ndjson */
  files: string[];
  /** how long generating took, or null when the files in the folder were kept */
  generatedMs: number | null;
}

function today(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** The sample's files in `dir`, generated first unless they are there, of this size and recent. */
export async function ensureSampleFiles(dir: string, size: SampleSize): Promise<SampleFiles> {
  const metaFile = path.join(dir, 'meta.json');
  const files = [path.join(dir, 'corporates.ndjson'), path.join(dir, 'jobs.ndjson')];
  if (existsSync(metaFile) && files.every((file) => existsSync(file))) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as SampleMeta;
    const ageDays = (Date.now() - Date.parse(meta.now)) / 86_400_000;
    const same = meta.seed === size.seed && meta.jobs === size.jobs && meta.companies === size.companies;
    if (same && ageDays <= maxAgeDays) return { files, generatedMs: null };
  }
  const now = today();
  const started = Date.now();
  await generateDataSet({ ...size, now, outDir: dir });
  writeFileSync(metaFile, `${JSON.stringify({ ...size, now: now.toISOString() } satisfies SampleMeta)}\n`);
  return { files, generatedMs: Date.now() - started };
}
