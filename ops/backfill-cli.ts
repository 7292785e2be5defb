/** `npm run backfill`: gives documents written before the compact record copy their copy (see ./backfill-copies.ts). */
import { openCliServices } from '../indexer/cli-services.js';
import { backfillCopies } from './backfill-copies.js';
import { cliProgram, runCli } from './cli.js';

cliProgram(
  'backfill',
  'Write the compact record copy that searches read (compactRecord) into every posting and company ' +
    'that lacks one, the opening excerpt of the snippets (descriptionOpening) into every posting written before it, ' +
    'and the name keys and match card of match and suggest into every company whose keys or card are not those ' +
    'of the current fold: after an upgrade from a version without them, or one that changed the fold. ' +
    'Safe beside the indexer; ' +
    'run it again while it reports changed or failed documents. OpenSearch: OPENSEARCH_URL, else the local node.',
).parse();

runCli('backfill', async () => {
  const services = await openCliServices();
  try {
    const started = Date.now();
    const result = await backfillCopies(services.opensearch, services.indexPrefix, {
      onPage: (index, done) => process.stderr.write(`\r${index}: ${done} copies written`),
    });
    const line = (name: string, counts: typeof result.jobs) =>
      `${name}: ${counts.written} copies written, ${counts.changed} changed meanwhile, ${counts.failed} failed`;
    console.log(
      `\n${line('postings', result.jobs)}\n${line('companies', result.corporates)}\n` +
        `name keys: ${result.keys.written} companies re-keyed, ${result.keys.changed} changed meanwhile, ${result.keys.failed} failed\n` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    const left =
      result.jobs.changed +
      result.jobs.failed +
      result.corporates.changed +
      result.corporates.failed +
      result.keys.changed +
      result.keys.failed;
    if (left > 0) {
      console.log('some documents were not given a copy: run it again');
      process.exitCode = 1;
    }
  } finally {
    await services.close();
  }
});
