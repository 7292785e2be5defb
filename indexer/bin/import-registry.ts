/**
 * `npm run import:registry -- <file...>`: NTA corporate-number files (full or diff; CSV, the
 * zips they are published in, or `-` for standard input) into the corporates index
 * (../registry/import.ts). Resumes each file (each zip entry) from its checkpoint; one loaded to its end is
 * skipped unless `--restart`.
 */
import { runCli } from '../../ops/cli.js';
import { openCliServices } from '../cli-services.js';
import { FileDeadLetter } from '../dead-letter.js';
import { importRegistryFiles } from '../registry/import.js';
import { fileImportCommand, fileProgressBar, reportFileResults } from './file-import-cli.js';

const { files, options } = fileImportCommand(
  'import:registry',
  "Load the NTA's corporate-number files (full files per prefecture, daily diffs; the zips as " +
    'downloaded, or the CSV inside) into the corporates index: only the fields the registry owns ' +
    'are written. Give a full file before its diffs. OpenSearch: OPENSEARCH_URL, else the local node.',
  'registry',
);

runCli('import:registry', async () => {
  const services = await openCliServices();
  const progress = fileProgressBar();
  try {
    const deadLetter = new FileDeadLetter(options.deadLetter);
    const result = await importRegistryFiles(files, {
      client: services.opensearch,
      indexPrefix: services.indexPrefix,
      deadLetter,
      stateDir: options.stateDir,
      encoding: options.encoding,
      batchSize: options.batchSize,
      restart: options.restart ?? false,
      onProgress: progress.show,
    });
    progress.stop();
    const { total } = result;
    reportFileResults(
      result.files,
      total,
      `read ${total.read}, upserted ${total.upserted}, closed ${total.closed}, restored ${total.restored}, ` +
        `deleted ${total.deleted}, unchanged ${total.unchanged}, rejected ${total.rejected}`,
      deadLetter.location,
    );
  } finally {
    progress.stop();
    await services.close();
  }
});
