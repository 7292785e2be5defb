import { indexName } from '../src/opensearch/indices.js';

/** The three aliases the indexer writes, under one prefix. */
export interface IndexNames {
  corporates: string;
  jobs: string;
  jobDetails: string;
}

export function indexNames(prefix: string): IndexNames {
  return {
    corporates: indexName(prefix, 'corporates'),
    jobs: indexName(prefix, 'jobs'),
    jobDetails: indexName(prefix, 'job-details'),
  };
}
