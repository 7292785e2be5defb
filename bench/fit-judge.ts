/**
 * Fits the match judge's weights (data/names/judge-weights.json, read by src/names/judge.ts) to
 * the answers of the match endpoint on a FIT set of labelled records, so that a candidate's
 * confidence is the share of such candidates that are right: logistic regression (L2-regularised,
 * batch gradient descent) of "this candidate is the company the record refers to" on the
 * candidate's features, as the endpoint lists them.
 *
 *   npx tsx bench/fit-judge.ts --dump .local/names-fit.json [--write]
 *
 * The dump is the fit set's records with the endpoint's results ([{entry, result}], as
 * test/names-evaluation.test.ts writes it with NAMES_EVAL_DUMP and NAMES_EVAL_SEED set). Use a
 * seed other than the evaluation's: the evaluation then measures the fitted weights on records
 * they were not fitted to.
 *
 * A weight whose feature is present in fewer than `minimumSupport` candidates of the fit set
 * keeps its value (a rule the set cannot teach: a closed company, a corporate number no company
 * has). Without --write the fitted weights are printed, not written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type FeatureList,
  featuresFromList,
  featureVector,
  readWeights,
  type WeightName,
  type Weights,
  weightNames,
} from '../src/names/judge.js';
import { projectRoot } from '../src/project-root.js';
import type { LabelledRecord } from './name-variants.js';
import { truthOf } from './names/outcomes.js';

interface Dumped {
  entry: LabelledRecord;
  result: { candidates: Array<{ corporateNumber: string; features: FeatureList }> };
}

const minimumSupport = 20;
const l2 = 0.01;
const rounds = 4000;
const rate = 0.5;
/** Candidates per record the fit reads, as the evaluation's calibration does. */
const topCandidates = 5;

export interface Sample {
  x: Record<WeightName, number>;
  right: boolean;
}

/** The fit's samples: each record's first candidates, right when it is the company referred to. */
export function samplesOf(dumped: readonly Dumped[]): Sample[] {
  return dumped.flatMap(({ entry, result }) =>
    result.candidates.slice(0, topCandidates).flatMap((candidate) => {
      const features = featuresFromList(candidate.features);
      // a corporate number that agrees decides by rule, not by weight
      if (features.corporateNumber === true) return [];
      return [{ x: featureVector(features), right: candidate.corporateNumber === truthOf(entry) }];
    }),
  );
}

/** Logistic regression from `start`; the weights of features seen fewer than minimumSupport times stay. */
export function fitWeights(
  samples: readonly Sample[],
  start: Weights,
): { weights: Weights; logLoss: number } {
  const free = weightNames.filter(
    (name) =>
      name === 'intercept' || samples.filter((sample) => sample.x[name] !== 0).length >= minimumSupport,
  );
  const w = { ...start };
  const z = (x: Sample['x']) => weightNames.reduce((sum, name) => sum + w[name] * x[name], 0);
  for (let round = 0; round < rounds; round++) {
    const gradient = Object.fromEntries(free.map((name) => [name, 0])) as Record<WeightName, number>;
    for (const { x, right } of samples) {
      const error = 1 / (1 + Math.exp(-z(x))) - (right ? 1 : 0);
      for (const name of free) gradient[name] += error * x[name];
    }
    for (const name of free) {
      const penalty = name === 'intercept' ? 0 : l2 * w[name];
      w[name] -= rate * (gradient[name] / samples.length + penalty);
    }
  }
  let loss = 0;
  for (const { x, right } of samples) {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, 1 / (1 + Math.exp(-z(x)))));
    loss -= right ? Math.log(p) : Math.log(1 - p);
  }
  const rounded = Object.fromEntries(weightNames.map((name) => [name, Math.round(w[name] * 1000) / 1000]));
  return { weights: rounded as unknown as Weights, logLoss: loss / samples.length };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dump: { type: 'string' }, write: { type: 'boolean' } } });
  if (!values.dump) throw new Error('--dump <file> is required');
  const dumped = JSON.parse(readFileSync(values.dump, 'utf8')) as Dumped[];
  const samples = samplesOf(dumped);
  const file = path.join(projectRoot, 'data', 'names', 'judge-weights.json');
  const { weights, logLoss } = fitWeights(samples, readWeights(file));
  const right = samples.filter((sample) => sample.right).length;
  console.log(
    `fitted on ${samples.length} candidates of ${dumped.length} records (${right} right); log loss ${logLoss.toFixed(4)}`,
  );
  console.log(JSON.stringify(weights, null, 2));
  if (!values.write) return;
  const source =
    `The weights of the match judge (src/names/judge.ts): the confidence of a candidate is 1 / (1 + e^-z), z the ` +
    `intercept plus the weight of each feature present (similarity times its value, rivals times log(1 + rivals)). ` +
    `Fitted by bench/fit-judge.ts (logistic regression, L2 ${l2}) on ${samples.length} candidates of ` +
    `${dumped.length} labelled records (${path.basename(values.dump)}), a seed apart from the evaluation's; ` +
    `the weights of features seen fewer than ${minimumSupport} times kept their hand-set values (closed, a ` +
    `corporate number no company has, ...). Refit after changing the features or the keys (docs/names.md).`;
  writeFileSync(file, `${JSON.stringify({ source, weights }, null, 2)}\n`);
  console.log(`wrote ${path.relative(projectRoot, file)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? ''))
  await main();
