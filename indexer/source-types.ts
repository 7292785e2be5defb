/** The source records' shapes live in src/source-types.ts: the pipeline reads them, the sample-data generator writes them. */
export * from '../src/source-types.js';
