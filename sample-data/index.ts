/**
 * @corpsearch/sample-data: the seeded sample data set (README.md here). Its entry: what the
 * rest of the project may import. The generator's own modules stay behind it. Besides the data
 * set and the start-up sample's files, the register generator (indexer/registry/generate.ts)
 * and the name benchmarks reuse its random source, places, lines of business, name parts and
 * width conversions.
 */
export { type GeneratedFiles, type GenerateOptions, generateDataSet } from './generator.js';
export { toFullWidth, toHalfWidthKana } from './hard-cases.js';
export { type City, pickCity, postalCode, prefectureWeights } from './places.js';
export { profiles } from './profiles.js';
export { Random } from './random.js';
export { ensureSampleFiles, type SampleFiles, type SampleSize, sampleSize } from './sample-files.js';
export { foreignStems, nameStems, nationalBodies, nonProfitFields, surnames } from './vocabulary.js';
