/**
 * `npm run rolloff`: the nightly work, once, now: the roll-off (../rolloff.ts) and the count of
 * hiring activity the calendar moved (../activity-refresh.ts).
 */
import { cliProgram, runCli } from '../../ops/cli.js';
import { refreshActivity } from '../activity-refresh.js';
import { openCliServices } from '../cli-services.js';
import { rollOff } from '../rolloff.js';

cliProgram(
  'rolloff',
  'Remove the searchable detail text of postings collected more than a month ago, once, now ' +
    'and count again the hiring activity of every company whose windows the calendar moved ' +
    '(the worker also does both nightly at 03:00 JST). OpenSearch: OPENSEARCH_URL, else the local node.',
).parse();

runCli('rolloff', async () => {
  const services = await openCliServices();
  try {
    const started = Date.now();
    const result = await rollOff(services.opensearch, services.indexPrefix, {
      onBatch: (done) => process.stderr.write(`\r${done} postings rolled off`),
    });
    console.log(
      `\nrolled off the searchable text of ${result.postings} postings of ${result.companies.length} companies ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s` +
        (result.failures > 0 ? `; ${result.failures} updates failed (run again)` : ''),
    );
    const activity = await refreshActivity(services.opensearch, services.indexPrefix);
    console.log(
      `counted the hiring activity of ${activity.companies.length} companies again; ` +
        `${activity.filled} companies without postings given their first count` +
        (activity.failures > 0 ? `; ${activity.failures} writes failed (run again)` : ''),
    );
    if (result.failures > 0 || activity.failures > 0) process.exitCode = 1;
  } finally {
    await services.close();
  }
});
