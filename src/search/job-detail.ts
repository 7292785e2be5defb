/** GET /jobs/{jobId}/detail: the full text from `job-details`, kept after the searchable copy rolled off. */

import { type Deadline, DeadlineExceeded } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { metrics } from '../metrics.js';
import { indexName } from '../opensearch/indices.js';
import type { Services } from '../services.js';
import { toSearchError } from './opensearch-errors.js';
import { toJobDetail } from './records.js';

export async function getJobDetail(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  jobId: string,
  deadline?: Deadline,
) {
  let found: { found?: boolean; _source?: Record<string, unknown> };
  const timer = metrics.engineDuration.startTimer({ operation: 'job_detail' });
  try {
    const response = await services.opensearch.get(
      { index: indexName(services.config.indexPrefix, 'job-details'), id: jobId },
      { ignore: [404], deadline, operation: 'job detail' },
    );
    found = response.body as typeof found;
    timer({ outcome: 'ok' });
  } catch (error) {
    timer({ outcome: 'error' });
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, services.logger);
  }
  if (!found.found || !found._source) throw errors.notFound('Job');
  return toJobDetail(jobId, found._source);
}
