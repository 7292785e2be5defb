/**
 * Fits the match judge (data/names/judge-weights.json, read by src/names/judge.ts) to the
 * answers of the match endpoint on a FIT set of labelled records, in two steps:
 *
 * 1. the weights: a choice among the record's candidates and "none of them" (conditional
 *    logit): candidate i has odds e^z_i, "none" odds 1, and the fit maximises the probability
 *    of the right choice (the labelled company, or none when it is not among the candidates),
 *    by Newton's method (a step halved until the fit improves), with a prior that holds each
 *    weight near its hand-set value (`handSet`); the rules (`rules`: another prefecture,
 *    another kind of body, another corporate number, a closed company) keep their hand-set
 *    weights;
 * 2. the calibration: a candidate's share of the record's odds against whether it was right,
 *    made monotone by pooling adjacent violators (isotonic regression), in steps of at least
 *    `minimumStep` candidates, each step's confidence its share right (with half a right and
 *    half a wrong added, so a step of all right is not 1).
 *
 *   npx tsx bench/fit-judge.ts --dump .local/names-scale/fit-7.json [--dump ...] [--write [--out file]] [--register <words>]
 *
 * A dump is a fit set's records with the endpoint's results ([{entry, result}]), as
 * `bench/names-scale.ts fit-dump` writes them over the register of 1,000,000 companies (every
 * company judged for a record: the odds its confidences share; for the judge shipped,
 * data/names/judge-weights.json) and test/names/names-evaluation.test.ts with NAMES_EVAL_SEED
 * and NAMES_EVAL_DUMP set over the start-up sample (10 candidates per record;
 * test/fixtures/match/judge-weights-sample.json): a calibration holds for a
 * register like the one it was fitted on. Use seeds other than the evaluation's: the evaluation
 * then measures the fitted judge on records it was not fitted to. Without --write the fit is
 * printed; --write writes it to --out (data/names/judge-weights.json unless given).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Calibration,
  type FeatureList,
  featuresFromList,
  featureVector,
  oddsOfVector,
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

/**
 * The weights set by hand from the matcher's rules (a unique equal key is a match; namesakes,
 * a closed company, another prefecture or kind of body are not): the prior of the fit.
 */
export const handSet: Weights = {
  intercept: -6,
  nameKey: 4,
  spokenKey: 3.5,
  // no fit set holds a former name (the generator makes none), so the fit leaves this weight
  // where it is: under an equal name key's and an equal spoken key's, as its strength is
  formerName: 2.3,
  similarity: 5,
  legalFormAgrees: 0.5,
  legalFormDisagrees: -10,
  prefectureAgrees: 0.7,
  prefectureDisagrees: -10,
  city: 1.5,
  cityDisagrees: -1,
  phone: 4,
  phoneDisagrees: -1.5,
  website: 3.5,
  websiteDisagrees: -1.5,
  closed: -8,
  corporateNumberDisagrees: -12,
  rivals: -3,
  nearRivals: -3,
  outranked: -3,
};

/**
 * The rules, held at their hand-set weights rather than fitted: evidence that rules a company
 * out (another prefecture, another kind of body, another corporate number) or a company closed
 * in the register, which a fit set shows seldom beside a company alone, where they decide most.
 */
export const rules: readonly WeightName[] = [
  'prefectureDisagrees',
  'legalFormDisagrees',
  'corporateNumberDisagrees',
  'closed',
];

/** The prior's pull per record (a Gaussian prior around handSet, 1 / variance per record). */
const prior = 0.0003;
const newtonRounds = 30;
/** The fewest candidates a calibration step holds. */
const minimumStep = 150;

/** One record of the fit: its candidates' feature vectors and which one is right (-1: none). */
export interface Choice {
  xs: Array<Record<WeightName, number>>;
  right: number;
}

/** The fit's choices: each record's candidates (a corporate number that agrees decides by rule). */
export function choicesOf(dumped: readonly Dumped[]): Choice[] {
  return dumped.flatMap(({ entry, result }) => {
    const features = result.candidates.map((candidate) => featuresFromList(candidate.features));
    if (features.some((f) => f.corporateNumber === true)) return [];
    const truth = truthOf(entry);
    return [
      {
        xs: features.map((f) => featureVector(f)),
        right: result.candidates.findIndex((candidate) => candidate.corporateNumber === truth),
      },
    ];
  });
}

/** Each candidate's share of the record's odds, "none of them" counting 1. */
export function sharesOf(w: Weights, choice: Choice): number[] {
  const odds = choice.xs.map((x) => oddsOfVector(x, w));
  const total = 1 + odds.reduce((sum, value) => sum + value, 0);
  return odds.map((value) => value / total);
}

/** A square matrix of the fit's size, row by row. */
class Square {
  readonly cells: Float64Array;
  constructor(readonly n: number) {
    this.cells = new Float64Array(n * n);
  }
  get(row: number, col: number): number {
    return this.cells[row * this.n + col] ?? 0;
  }
  set(row: number, col: number, value: number): void {
    this.cells[row * this.n + col] = value;
  }
  add(row: number, col: number, value: number): void {
    this.set(row, col, this.get(row, col) + value);
  }
}

/** Solves A x = b (Gauss-Jordan elimination with partial pivoting; A is the fit's small Hessian). */
function solve(a: Square, b: readonly number[]): number[] {
  const n = a.n;
  const m = new Square(n);
  m.cells.set(a.cells);
  const rhs = [...b];
  const at = (i: number) => rhs[i] ?? 0;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m.get(r, col)) > Math.abs(m.get(pivot, col))) pivot = r;
    for (let k = 0; k < n; k++) {
      const swap = m.get(col, k);
      m.set(col, k, m.get(pivot, k));
      m.set(pivot, k, swap);
    }
    [rhs[col], rhs[pivot]] = [at(pivot), at(col)];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = m.get(r, col) / m.get(col, col);
      for (let k = col; k < n; k++) m.add(r, k, -factor * m.get(col, k));
      rhs[r] = at(r) - factor * at(col);
    }
  }
  return rhs.map((value, i) => value / m.get(i, i));
}

/** The summed log loss of the right choices under `w`. */
function summedLoss(choices: readonly Choice[], w: Weights): number {
  let loss = 0;
  for (const choice of choices) {
    const p = sharesOf(w, choice);
    const right = choice.right >= 0 ? (p[choice.right] ?? 0) : 1 - p.reduce((sum, value) => sum + value, 0);
    loss -= Math.log(Math.min(1 - 1e-9, Math.max(1e-9, right)));
  }
  return loss;
}

/** The log loss per record. */
function logLoss(choices: readonly Choice[], w: Weights): number {
  return summedLoss(choices, w) / Math.max(1, choices.length);
}

/** What the fit minimises: the summed log loss and the prior's pull towards `start`. */
function objective(choices: readonly Choice[], w: Weights, start: Weights): number {
  const count = Math.max(1, choices.length);
  let pull = 0;
  for (const name of weightNames) pull += (prior * count * (w[name] - start[name]) ** 2) / 2;
  return summedLoss(choices, w) + pull;
}

/** The weights that make the right choices most likely, near the prior; and the log loss per record. */
export function fitWeights(
  choices: readonly Choice[],
  start: Weights = handSet,
): { weights: Weights; logLoss: number } {
  const w = { ...start };
  const count = Math.max(1, choices.length);
  const n = weightNames.length;
  for (let round = 0; round < newtonRounds; round++) {
    const gradient = weightNames.map((name) => prior * count * (w[name] - start[name]));
    const hessian = new Square(n);
    for (let a = 0; a < n; a++) hessian.set(a, a, prior * count);
    for (const choice of choices) {
      const p = sharesOf(w, choice);
      const mean = weightNames.map((name) => choice.xs.reduce((sum, x, i) => sum + (p[i] ?? 0) * x[name], 0));
      choice.xs.forEach((x, i) => {
        const share = p[i] ?? 0;
        const error = share - (i === choice.right ? 1 : 0);
        weightNames.forEach((a, ai) => {
          gradient[ai] = (gradient[ai] ?? 0) + error * x[a];
          weightNames.forEach((b, bi) => {
            hessian.add(ai, bi, share * x[a] * x[b]);
          });
        });
      });
      mean.forEach((ma, ai) => {
        mean.forEach((mb, bi) => {
          hessian.add(ai, bi, -ma * mb);
        });
      });
    }
    // a rule takes no step: its row and column are the identity, its gradient 0
    weightNames.forEach((name, i) => {
      if (!rules.includes(name)) return;
      gradient[i] = 0;
      for (let j = 0; j < n; j++) {
        hessian.set(i, j, i === j ? 1 : 0);
        hessian.set(j, i, i === j ? 1 : 0);
      }
    });
    const step = solve(hessian, gradient);
    // a damped step: halved until the objective falls (a full Newton step can overshoot where
    // a feature nearly separates right from wrong, and the weights then run away)
    const before = objective(choices, w, start);
    let scale = 1;
    for (let halving = 0; halving < 30; halving++, scale /= 2) {
      const tried = { ...w };
      weightNames.forEach((name, i) => {
        tried[name] -= scale * (step[i] ?? 0);
      });
      if (objective(choices, tried, start) <= before) {
        Object.assign(w, tried);
        break;
      }
    }
  }
  const loss = logLoss(choices, w);
  const rounded = Object.fromEntries(weightNames.map((name) => [name, Math.round(w[name] * 1000) / 1000]));
  return { weights: rounded as unknown as Weights, logLoss: loss };
}

/**
 * The calibration of the shares `weights` give: isotonic steps of at least minimumStep
 * candidates, each step's confidence (right + 0.5) / (candidates + 1), rounded to 3 decimals.
 */
export function fitCalibration(choices: readonly Choice[], weights: Weights): Calibration {
  const points = choices
    .flatMap((choice) => sharesOf(weights, choice).map((share, i) => [share, i === choice.right ? 1 : 0]))
    .sort((a, b) => (a[0] as number) - (b[0] as number));
  type Step = { from: number; right: number; count: number };
  const rate = (s: Step) => s.right / s.count;
  const steps: Step[] = [];
  for (const [share, right] of points) {
    steps.push({ from: share as number, right: right as number, count: 1 });
    // pool while the steps fall, or the last one is too small to stand
    for (;;) {
      const last = steps.at(-1) as Step;
      const before = steps.at(-2);
      if (!before || (rate(before) < rate(last) && before.count >= minimumStep)) break;
      steps.splice(-2, 2, {
        from: before.from,
        right: before.right + last.right,
        count: before.count + last.count,
      });
    }
  }
  // the last step may be short: join it to the one before
  const last = steps.at(-1);
  const before = steps.at(-2);
  if (last && before && last.count < minimumStep)
    steps.splice(-2, 2, {
      from: before.from,
      right: before.right + last.right,
      count: before.count + last.count,
    });
  // the half right and half wrong added can put a small step under the one before: it keeps that
  // one's confidence, so that the steps still rise
  let highest = 0;
  const written: Calibration = [];
  steps.forEach((step, i) => {
    highest = Math.max(highest, Math.round(((step.right + 0.5) / (step.count + 1)) * 1000) / 1000);
    const from = i === 0 ? 0 : Math.round(step.from * 1e6) / 1e6;
    // two steps whose starts round alike are one: the later confidence, which is the higher
    const last = written.at(-1);
    if (last && last[0] === from) last[1] = highest;
    else written.push([from, highest]);
  });
  return written;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dump: { type: 'string', multiple: true },
      write: { type: 'boolean' },
      out: { type: 'string', default: path.join(projectRoot, 'data', 'names', 'judge-weights.json') },
      register: { type: 'string', default: 'the register of 1,000,000 companies of bench/names-scale.ts' },
    },
  });
  if (!values.dump?.length) throw new Error('--dump <file> is required (one or more)');
  const dumped = values.dump.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Dumped[]);
  const choices = choicesOf(dumped);
  const { weights, logLoss } = fitWeights(choices);
  const calibration = fitCalibration(choices, weights);
  const candidates = choices.reduce((sum, choice) => sum + choice.xs.length, 0);
  console.log(
    `fitted on ${choices.length} records (${candidates} candidates; the right one among them in ` +
      `${choices.filter((choice) => choice.right >= 0).length}); log loss ${logLoss.toFixed(4)} per record`,
  );
  console.log(JSON.stringify({ weights, calibration }, null, 2));
  if (!values.write) return;
  const file = values.out;
  const source =
    `The match judge (src/names/judge.ts): a company's odds are e^z, z the intercept plus the weight of each feature ` +
    `present (similarity times its value, rivals times log(1 + rivals)); its confidence is its share of the record's ` +
    `odds ("none of them" counting 1) read through the calibration steps [share from, confidence]. Fitted by ` +
    `bench/fit-judge.ts on ${choices.length} labelled records of ${values.register} (${values.dump.map((file) => path.basename(file)).join(', ')}), seeds apart from the ` +
    `evaluation's: the weights by a choice model near the hand-set rules, the steps by isotonic regression of ` +
    `right answers on the shares. Refit after changing the features, the keys or the lookup (docs/names.md).`;
  // laid out as the formatter (biome) keeps it: a step per line
  const json = JSON.stringify({ source, weights, calibration: [] }, null, 2).replace(
    '"calibration": []',
    `"calibration": [\n${calibration.map((step) => `    ${JSON.stringify(step).replace(',', ', ')}`).join(',\n')}\n  ]`,
  );
  writeFileSync(file, `${json}\n`);
  console.log(`wrote ${path.relative(projectRoot, file)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? ''))
  await main();
