/**
 * The benchmarks' generated data sets: `.local/bench-data/<name>/` holds the sample-data
 * generator's two NDJSON files, written once and reused while its `complete` mark stands (a
 * run stopped while generating leaves no mark, so the next one generates again).
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateDataSet } from '../sample-data/index.js';
import { projectRoot } from '../src/project-root.js';

export interface BenchDataSet {
  dir: string;
  /** corporates.ndjson, then jobs.ndjson: the order the pipeline loads them in */
  files: string[];
}

export async function benchDataSet(
  name: string,
  spec: { companies: number; jobs: number; seed: number; now: Date },
  log: (line: string) => void = () => {},
): Promise<BenchDataSet> {
  const dir = path.join(projectRoot, '.local', 'bench-data', name);
  const done = path.join(dir, 'complete');
  if (!existsSync(done)) {
    log(`generating ${spec.companies} companies / ${spec.jobs} postings into ${dir}`);
    await generateDataSet({ ...spec, outDir: dir });
    writeFileSync(done, new Date().toISOString());
  } else log(`reusing the data set in ${dir}`);
  return { dir, files: [path.join(dir, 'corporates.ndjson'), path.join(dir, 'jobs.ndjson')] };
}
