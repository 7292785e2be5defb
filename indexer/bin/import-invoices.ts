/**
 * `npm run import:invoices -- <file...>`: the NTA's invoice-issuer files (the full file and
 * daily diffs; CSV, the zips they are published in, or `-` for standard input) onto the
 * companies of the corporates index (../invoice/import.ts; docs/public-records.md). Resumes
 * each file (each zip entry) from its checkpoint; one loaded to its end is skipped unless
 * `--restart`. Load the corporate-number register first: a registration whose company the
 * index does not hold is counted `noCompany` and not written.
 */
import { runCli } from '../../ops/cli.js';
import { openCliServices } from '../cli-services.js';
import { FileDeadLetter } from '../dead-letter.js';
import { importInvoiceFiles } from '../invoice/import.js';
import { fileImportCommand, fileProgressBar, importWatch, reportFileResults } from './file-import-cli.js';

const { files, options } = fileImportCommand(
  'import:invoices',
  "Load the NTA's invoice-issuer files (適格請求書発行事業者: the full file, daily diffs; the zips " +
    'as downloaded, or the CSV inside) onto the companies of the corporates index: only the ' +
    'invoice registration is written. Give a full file before its diffs. OpenSearch: ' +
    'OPENSEARCH_URL, else the local node.',
  'invoice',
);

runCli('import:invoices', async () => {
  const services = await openCliServices();
  const progress = fileProgressBar();
  let watching: Awaited<ReturnType<typeof importWatch>> | undefined;
  try {
    watching = await importWatch(services);
    const deadLetter = new FileDeadLetter(options.deadLetter);
    const result = await importInvoiceFiles(files, {
      client: services.opensearch,
      indexPrefix: services.indexPrefix,
      deadLetter,
      stateDir: options.stateDir,
      encoding: options.encoding,
      batchSize: options.batchSize,
      restart: options.restart ?? false,
      onProgress: progress.show,
      ...(watching.watch ? { watch: watching.watch } : {}),
    });
    progress.stop();
    const { total } = result;
    reportFileResults(
      result.files,
      total,
      `read ${total.read}, set ${total.set}, removed ${total.removed}, unchanged ${total.unchanged}, ` +
        `older ${total.older}, no company ${total.noCompany}, persons ${total.persons}, rejected ${total.rejected}`,
      deadLetter.location,
    );
  } finally {
    progress.stop();
    await watching?.close();
    await services.close();
  }
});
