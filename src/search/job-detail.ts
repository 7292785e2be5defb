/** GET /jobs/{jobId}/detail: the full text from `job-details`, kept after the searchable copy rolled off. */
import { errors } from '../errors/catalogue.js';
import { indexName } from '../opensearch/indices.js';
import type { Services } from '../services.js';
import { toSearchError } from './opensearch-errors.js';
import { toJobDetail } from './records.js';

export async function getJobDetail(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  jobId: string,
) {
  let found: { found?: boolean; _source?: Record<string, unknown> };
  try {
    const response = await services.opensearch.get(
      { index: indexName(services.config.indexPrefix, 'job-details'), id: jobId },
      { ignore: [404] },
    );
    found = response.body as typeof found;
  } catch (error) {
    throw toSearchError(error, services.logger);
  }
  if (!found.found || !found._source) throw errors.notFound('Job');
  return toJobDetail(jobId, found._source);
}
