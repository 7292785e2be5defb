import { indexName } from '../src/opensearch/indices.js';

/** The aliases the indexer writes, under one prefix. */
export interface IndexNames {
  corporates: string;
  jobs: string;
  jobDetails: string;
  /** one document per versioned company delete: what a late older company record is checked against */
  deletedCorporates: string;
  /** one document per company and posting ever seen on it, open or closed (./hiring-activity.ts) */
  postingHistory: string;
}

export function indexNames(prefix: string): IndexNames {
  return {
    corporates: indexName(prefix, 'corporates'),
    jobs: indexName(prefix, 'jobs'),
    jobDetails: indexName(prefix, 'job-details'),
    deletedCorporates: indexName(prefix, 'deleted-corporates'),
    postingHistory: indexName(prefix, 'posting-history'),
  };
}
