/**
 * The start-up sample: when the indices are empty, `npm start` has the sample-data package
 * generate a small data set (2,000 companies, 20,000 postings, fixed seed) into .local/sample/
 * unless it is there and recent (sample-data/sample-files.ts), and ingests it directly; then
 * it loads invoice registrations for the sample's companies (./invoice/sample.ts) through the
 * invoice importer, as `npm run import:invoices` would.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { ensureSampleFiles, type SampleSize, sampleSize } from '../sample-data/index.js';
import type { Engine } from '../src/opensearch/engine.js';
import { projectRoot } from '../src/project-root.js';
import { japanDay } from '../src/text/japan-day.js';
import { FileDeadLetter } from './dead-letter.js';
import { indexNames } from './index-names.js';
import { ingestFiles } from './ingest.js';
import { importInvoiceFiles } from './invoice/import.js';
import { sampleInvoiceRows, writeSampleInvoiceFile } from './invoice/sample.js';

export interface SampleOptions {
  size?: SampleSize;
  dir?: string;
}

/** Loads the sample when the corporates index is empty; returns whether it loaded. */
export async function loadSampleDataIfEmpty(
  client: Engine,
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
  const bulkClient = client.writer();
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
  const invoices = await loadSampleInvoices(client, indexPrefix, files[0] as string, dir);
  await client.indices.refresh({ index: `${names.corporates},${names.jobs},${names.jobDetails}` });
  logger.info(
    {
      report: result.report,
      recordsSeconds: result.seconds.records,
      rebuildSeconds: result.seconds.rebuild,
      invoiceRegistrations: invoices,
      totalSeconds: (Date.now() - started) / 1000,
    },
    'sample data loaded',
  );
  return true;
}

/** The sample's invoice registrations, written and loaded; how many were set. */
async function loadSampleInvoices(
  client: Engine,
  indexPrefix: string,
  corporatesFile: string,
  dir: string,
): Promise<number> {
  const companies = readFileSync(corporatesFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { corporateNumber: string; name: string });
  const file = path.join(dir, 'invoice_all_sample.csv');
  writeSampleInvoiceFile(file, sampleInvoiceRows(companies, japanDay(new Date())));
  const stateDir = mkdtempSync(path.join(dir, 'invoice-state-'));
  try {
    const { total } = await importInvoiceFiles([file], {
      client,
      indexPrefix,
      deadLetter: new FileDeadLetter(path.join(dir, 'dead-letter.ndjson')),
      stateDir,
    });
    return total.set;
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
