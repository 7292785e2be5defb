/**
 * The start-up sample: when the indices are empty, `npm start` has the sample-data package
 * generate a small data set (2,000 companies, 20,000 postings, fixed seed) into .local/sample/
 * unless it is there and recent (sample-data/sample-files.ts), and ingests it directly.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { ensureSampleFiles, type SampleSize, sampleSize } from '../sample-data/index.js';
import { createBulkClient, type OpenSearchClient } from '../src/opensearch/client.js';
import { projectRoot } from '../src/project-root.js';
import { FileDeadLetter } from './dead-letter.js';
import { indexNames } from './index-names.js';
import { ingestFiles } from './ingest.js';

export interface SampleOptions {
  size?: SampleSize;
  dir?: string;
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
  const { files, generatedMs } = await ensureSampleFiles(dir, size);
  if (generatedMs !== null) logger.info({ dir, ms: generatedMs }, 'generated the sample data set');
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
