/**
 * The seeded sample data set: `corporates.ndjson` then `jobs.ndjson` (postings grouped by
 * company), written as streams. Only a small stub per company (number, name, offices, weight)
 * is held while the postings are made, so a million postings never sit in memory.
 * Same seed and same `now` -> byte-identical files.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { loadMasters } from '../src/masters/lookups.js';
import { projectRoot } from '../src/project-root.js';
import { type CompanyStub, makeCompany, type NameSource, nameFitsYear } from './companies.js';
import { hardCaseSchedule, scheduled } from './hard-cases.js';
import { makeJob } from './jobs.js';
import { Random } from './random.js';

export interface GenerateOptions {
  companies: number;
  jobs: number;
  seed: number;
  outDir: string;
  /** The data set's "today": postings are dated up to this moment. */
  now: Date;
  /**
   * The nested-posting limit of the corporates index (default: read from
   * mappings/corporates.json). Sets of at least four times this many postings get one to three
   * companies with more postings than that.
   */
  nestedLimit?: number;
  onProgress?: (written: { companies: number; jobs: number }) => void;
}

export interface GeneratedFiles {
  corporates: string;
  jobs: string;
}

async function writeLine(stream: WriteStream, value: unknown): Promise<void> {
  if (!stream.write(`${JSON.stringify(value)}\n`)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

/** Postings per company: proportional to the weights, summing exactly to `total`. */
export function allocatePostings(weights: number[], total: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0 || total === 0) return weights.map(() => 0);
  const counts = weights.map((weight) => Math.floor((total * weight) / sum));
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = weights
    .map((weight, index) => [weight, index] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let i = 0; left > 0; i = (i + 1) % order.length, left--) {
    const index = order[i]?.[1] as number;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  return counts;
}

/** `index.mapping.nested_objects.limit` of mappings/corporates.json (OpenSearch's default 10,000 if unset). */
export function nestedPostingLimit(): number {
  const mapping = JSON.parse(readFileSync(path.join(projectRoot, 'mappings', 'corporates.json'), 'utf8')) as {
    settings?: { index?: { mapping?: { nested_objects?: { limit?: number } } } };
  };
  return mapping.settings?.index?.mapping?.nested_objects?.limit ?? 10_000;
}

/**
 * Companies past the nested limit, and how far past: 10 over, 1 over, 5% over. None below
 * four times the limit in postings; one at 4x (the 200,000-posting bench set), three at 18x
 * (the 1,000,000 set).
 */
export function pastLimitCounts(jobs: number, limit: number): number[] {
  if (limit <= 0 || jobs < 4 * limit) return [];
  const count = Math.min(3, Math.max(1, Math.floor(jobs / (6 * limit))));
  return [limit + 10, limit + 1, limit + Math.max(2, Math.round(limit * 0.05))].slice(0, count);
}

/** Postings per company: the past-limit companies (staffing firms first) get theirs, the rest share by weight. */
export function postingCounts(
  stubs: Pick<CompanyStub, 'weight' | 'staffing'>[],
  jobs: number,
  limit: number,
): number[] {
  const pastLimit = pastLimitCounts(jobs, limit);
  const order = stubs
    .map((stub, index) => [stub, index] as const)
    .sort(
      (a, b) => Number(b[0].staffing) - Number(a[0].staffing) || b[0].weight - a[0].weight || a[1] - b[1],
    );
  const chosen = new Map<number, number>();
  for (const [i, count] of pastLimit.entries()) {
    const entry = order[i];
    if (entry) chosen.set(entry[1], count);
  }
  const reserved = [...chosen.values()].reduce((a, b) => a + b, 0);
  const counts = allocatePostings(
    stubs.map((stub, index) => (chosen.has(index) ? 0 : stub.weight)),
    jobs - reserved,
  );
  for (const [index, count] of chosen) counts[index] = count;
  return counts;
}

export async function generateDataSet(options: GenerateOptions): Promise<GeneratedFiles> {
  mkdirSync(options.outDir, { recursive: true });
  const files = {
    corporates: path.join(options.outDir, 'corporates.ndjson'),
    jobs: path.join(options.outDir, 'jobs.ndjson'),
  };
  const masters = loadMasters();
  const companyRandom = new Random(options.seed);
  const jobRandom = new Random(options.seed ^ 0x5f3759df);
  const stubs: CompanyStub[] = [];

  const corporates = createWriteStream(files.corporates);
  // the namesakes (hard-cases.ts): record 57 of every hundred takes the name of the latest
  // earlier company of its type in another prefecture, record 58 that of the latest one in its
  // own prefecture; the latest name per type and prefecture is all that is kept
  const { nameInOtherPrefecture, nameTwiceInPrefecture } = hardCaseSchedule;
  const latest = new Map<string, NameSource & { index: number }>();
  for (let index = 0; index < options.companies; index++) {
    const elsewhere = scheduled(nameInOtherPrefecture, index);
    const here = scheduled(nameTwiceInPrefecture, index);
    const namesake =
      elsewhere || here
        ? (corporateType: string, prefectureId: number, year: number) => {
            let best: (NameSource & { index: number }) | null = null;
            for (const source of latest.values())
              if (
                source.corporateType === corporateType &&
                (source.prefectureId === prefectureId) === here &&
                nameFitsYear(source, year) &&
                (!best || source.index > best.index)
              )
                best = source;
            return best;
          }
        : undefined;
    const { record, stub, source } = makeCompany(companyRandom, index, masters, options.now, namesake);
    if (source) latest.set(`${source.corporateType} ${source.prefectureId}`, { ...source, index });
    stubs.push(stub);
    await writeLine(corporates, record);
    if (index % 1000 === 999) options.onProgress?.({ companies: index + 1, jobs: 0 });
  }
  await close(corporates);

  const counts = postingCounts(stubs, options.jobs, options.nestedLimit ?? nestedPostingLimit());
  const jobs = createWriteStream(files.jobs);
  let sequence = 0;
  for (const [index, stub] of stubs.entries()) {
    for (let n = 0; n < (counts[index] ?? 0); n++) {
      await writeLine(jobs, makeJob(jobRandom, ++sequence, stub, masters, options.now));
      if (sequence % 5000 === 0) options.onProgress?.({ companies: options.companies, jobs: sequence });
    }
  }
  await close(jobs);
  return files;
}
