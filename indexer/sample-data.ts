/**
 * The start-up sample: when the indices are empty, `npm start` generates a small data set
 * (2,000 companies, 20,000 postings, fixed seed) into .local/sample/ unless it is there and
 * recent, and ingests it directly. Regenerated after a week so that the one-month window of
 * detail-text search keeps holding about a third of the postings.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { createBulkClient, type OpenSearchClient } from '../src/opensearch/client.js';
import { projectRoot } from '../src/project-root.js';
import { FileDeadLetter } from './dead-letter.js';
import { generateDataSet } from './generate/generator.js';
import { indexNames } from './index-names.js';
import { ingestFiles } from './ingest.js';

export const sampleSize = { companies: 2000, jobs: 20_000, seed: 20261121 };
const maxAgeDays = 7;

interface SampleMeta {
  seed: number;
  companies: number;
  jobs: number;
  now: string;
}

function today(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export interface SampleOptions {
  size?: { companies: number; jobs: number; seed: number };
  dir?: string;
}

async function ensureSampleFiles(
  dir: string,
  size: NonNullable<SampleOptions['size']>,
  logger: Logger,
): Promise<string[]> {
  const metaFile = path.join(dir, 'meta.json');
  const files = [path.join(dir, 'corporates.ndjson'), path.join(dir, 'jobs.ndjson')];
  if (existsSync(metaFile) && files.every((file) => existsSync(file))) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as SampleMeta;
    const ageDays = (Date.now() - Date.parse(meta.now)) / 86_400_000;
    const same = meta.seed === size.seed && meta.jobs === size.jobs && meta.companies === size.companies;
    if (same && ageDays <= maxAgeDays) return files;
  }
  const now = today();
  const started = Date.now();
  await generateDataSet({ ...size, now, outDir: dir });
  writeFileSync(metaFile, `${JSON.stringify({ ...size, now: now.toISOString() } satisfies SampleMeta)}\n`);
  logger.info({ dir, ms: Date.now() - started }, 'generated the sample data set');
  return files;
}

/** Loads the sample when the corporates index is empty; returns whether it loaded. */
export async function loadSampleDataIfEmpty(
  client: OpenSearchClient,
  indexPrefix: string,
  logger: Logger,
  options: SampleOptions = {},
): Promise<boolean> {
  const names = indexNames(indexPrefix);
  const size = options.size ?? sampleSize;
  const { body } = await client.count({ index: names.corporates });
  if (body.count > 0) return false;
  const started = Date.now();
  const dir = options.dir ?? path.join(projectRoot, '.local', 'sample');
  const files = await ensureSampleFiles(dir, size, logger);
  logger.info({ companies: size.companies, postings: size.jobs }, 'indices are empty: loading the sample');
  const bulkClient = createBulkClient(client);
  let lastTenth = -1;
  const result = await ingestFiles(files, {
    client: bulkClient,
    indexPrefix,
    deadLetter: new FileDeadLetter(path.join(dir, 'dead-letter.ndjson')),
    onProgress: ({ phase, done, total }) => {
      const tenth = Math.floor((done / Math.max(total, 1)) * 10);
      if (phase === 'records' && tenth !== lastTenth) {
        lastTenth = tenth;
        logger.info(`sample load: ${tenth * 10}% of the records`);
      }
    },
  });
  await client.indices.refresh({ index: `${names.corporates},${names.jobs},${names.jobDetails}` });
  logger.info(
    {
      report: result.report,
      recordsSeconds: result.seconds.records,
      rebuildSeconds: result.seconds.rebuild,
      totalSeconds: (Date.now() - started) / 1000,
    },
    'sample data loaded',
  );
  return true;
}
