/**
 * `npm run capacity`: the capacity model of docs/capacity.md with other numbers.
 *
 *   npm run capacity -- --companies 5000000 --postings 40000000 --rate 20
 */
import { InvalidArgumentError } from 'commander';
import { type CapacityInput, capacityPlan, japan, measured, registryPlan } from '../bench/capacity-model.js';
import { cliProgram, positiveWholeNumber, wholeNumber } from '../ops/cli.js';

function share(value: string): number {
  const parsed = Number(value);
  if (!(parsed > 0 && parsed < 1)) throw new InvalidArgumentError('must be a number between 0 and 1');
  return parsed;
}

const program = cliProgram(
  'capacity',
  'Shards, nodes, heap, disk and p95 for a market size and a peak search rate',
)
  .option('--companies <n>', 'companies indexed', positiveWholeNumber, japan.companies)
  .option('--postings <n>', 'postings kept searchable at once', positiveWholeNumber, japan.postings)
  .option('--rate <n>', 'peak searches per second', positiveWholeNumber, japan.searchesPerSecond)
  .option('--replicas <n>', 'replicas per primary shard', wholeNumber, japan.replicas)
  .option('--node-cpus <n>', 'vCPUs per data node', positiveWholeNumber, japan.nodeCpus)
  .option('--node-ram <gib>', 'RAM per data node, GiB', positiveWholeNumber, japan.nodeRamGiB)
  .option('--max-shard <gib>', 'largest primary shard wanted, GiB', positiveWholeNumber, japan.maxShardGiB)
  .option('--cpu-target <share>', 'share of CPU searches may use at peak', share, japan.cpuTarget)
  .option('--p95 <ms>', 'search p95 wanted at the peak rate, ms', positiveWholeNumber, japan.p95TargetMs)
  .option(
    '--registry-companies <n>',
    'companies of the NTA register (extrapolated from the 250,000-company run)',
    positiveWholeNumber,
    japan.companies,
  )
  .option('--diff-rows <n>', "rows of a day's registry diff", positiveWholeNumber, 5_000)
  .parse();
const o = program.opts<{
  companies: number;
  postings: number;
  rate: number;
  replicas: number;
  nodeCpus: number;
  nodeRam: number;
  maxShard: number;
  cpuTarget: number;
  p95: number;
  registryCompanies: number;
  diffRows: number;
}>();
const input: CapacityInput = {
  companies: o.companies,
  postings: o.postings,
  searchesPerSecond: o.rate,
  replicas: o.replicas,
  nodeCpus: o.nodeCpus,
  nodeRamGiB: o.nodeRam,
  maxShardGiB: o.maxShard,
  cpuTarget: o.cpuTarget,
  p95TargetMs: o.p95,
};
const registry = { extrapolation: true, ...registryPlan(o.registryCompanies, o.diffRows) };
process.stdout.write(
  `${JSON.stringify({ input, measured, plan: capacityPlan(input), registry }, null, 2)}\n`,
);
