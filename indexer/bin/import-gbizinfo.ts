/**
 * `npm run import:gbizinfo -- --kind subsidies Hojokinjoho.csv`: a gBizINFO download file
 * (subsidies, procurement, certifications, awards or workplace figures) onto the companies of
 * the corporates index
 * (../gbizinfo/import.ts; docs/public-records.md). Each file is the whole of its kind: a
 * company it no longer has loses its summary. Resumes a stopped run after its last batch of
 * companies; a file loaded to its end is skipped unless `--restart`.
 */
import { Option } from 'commander';
import { positiveWholeNumber, runCli } from '../../ops/cli.js';
import { openCliServices } from '../cli-services.js';
import { FileDeadLetter } from '../dead-letter.js';
import { type RecordKind, recordKinds } from '../gbizinfo/format.js';
import { defaultCompaniesPerPass, importRecordFile } from '../gbizinfo/import.js';
import { fileImportCommand, importWatch } from './file-import-cli.js';

const { files, options } = fileImportCommand(
  'import:gbizinfo',
  'Load a gBizINFO download file onto the companies of the corporates index: subsidies (補助金情報), ' +
    'procurement (調達情報), certifications (届出・認定情報), awards (表彰情報) or workplace figures ' +
    '(職場情報). OpenSearch: OPENSEARCH_URL, else the local node.',
  'gbizinfo',
  (program) =>
    program
      .addOption(
        new Option('--kind <kind>', 'what the file holds').choices([...recordKinds]).makeOptionMandatory(),
      )
      .option(
        '--companies-per-pass <n>',
        'companies summed per read of the file (memory: about 2 KiB each at most)',
        positiveWholeNumber,
        defaultCompaniesPerPass,
      ),
);

runCli('import:gbizinfo', async () => {
  const services = await openCliServices();
  let watching: Awaited<ReturnType<typeof importWatch>> | undefined;
  try {
    watching = await importWatch(services);
    const deadLetter = new FileDeadLetter(options.deadLetter);
    let rejected = 0;
    for (const file of files) {
      const summary = await importRecordFile(options.kind as RecordKind, file, {
        client: services.opensearch,
        indexPrefix: services.indexPrefix,
        deadLetter,
        stateDir: options.stateDir,
        encoding: options.encoding,
        batchSize: options.batchSize,
        restart: options.restart ?? false,
        allowShrink: options.allowShrink === true,
        companiesPerPass: options.companiesPerPass as number,
        ...(watching.watch ? { watch: watching.watch } : {}),
        onProgress: (done, total) => process.stderr.write(`\r${file}: ${done} of ${total} companies`),
      });
      process.stderr.write('\n');
      rejected += summary.rejected;
      console.log(
        summary.alreadyLoaded
          ? `${file}: loaded before (--restart to read it again)`
          : `${file}: read ${summary.read}, companies ${summary.companies}, set ${summary.set}, ` +
              `unchanged ${summary.unchanged}, cleared ${summary.cleared}, no company ${summary.noCompany}, ` +
              `rejected ${summary.rejected}`,
      );
      if (summary.sweepSkipped)
        console.log(
          'companies the file lacks were not cleared: it holds far fewer companies than the index, or many rows were refused (--allow-shrink clears them)',
        );
    }
    if (rejected > 0) console.log(`${rejected} rejected rows with their reasons: ${deadLetter.location}`);
    process.exitCode = rejected > 0 ? 2 : 0;
  } finally {
    await watching?.close();
    await services.close();
  }
});
