/**
 * The capacity model of docs/capacity.md: from a market's size and a peak search rate to
 * shards, nodes, heap, disk and an expected p95, scaled from what the bench measured on one
 * node. Pure arithmetic; `npm run capacity -- --help` runs it with other numbers.
 *
 *   capacityPlan({ ...japan, searchesPerSecond: 20 })
 *   // { shards: { corporates: 4, jobs: 4, ... }, dataNodes: 4, p95Ms: ..., ... }
 */

/** Figures measured here, each with where it comes from (docs/capacity.md, "Measured"). */
export const measured = {
  /** the set the per-search figures were measured on: 1,000,000 postings in one shard */
  referencePostings: 1_000_000,
  /** engine CPU per search of the query mix at 1 connection, 1M postings: 19.8 ms (docs/bench-1m.md, 20f6584) */
  engineCpuMsPerSearch: 20,
  /** raw p95 of the query mix at 1 connection, 1M postings (docs/bench-1m.md) */
  rawP95Ms: 39,
  /**
   * how engine work per search grows with the postings in a shard: raw throughput of the mix at
   * 8 connections fell from 222.6 to 155.2 searches/s from 200,000 to 1,000,000 postings
   * (docs/bench-200k.md, docs/bench-1m.md, the same search code): log(222.6 / 155.2) / log(5) = 0.22
   */
  growthExponent: 0.22,
  /** index bytes per company without postings (20,000 generated companies, force-merged) */
  bytesPerCompany: 2_593,
  /**
   * index bytes per posting, as left by ingestion (not force-merged), 1M-postings run at
   * 20f6584: jobs 4,748 (with its compact record copy), job-details 477, and its nested copy
   * in corporates (2,689 MB less the companies' own 259 MB, over 1M postings) 2,430
   */
  bytesPerPosting: { jobs: 4_748, jobDetails: 477, corporatesNested: 2_430 },
  /**
   * The register import at 250,000 generated companies (docs/bench-registry-1m.md, b792bf7):
   * one importer and the engine on one shared two-core machine.
   */
  registry: {
    /** companies loaded in the run the figures below come from */
    measuredCompanies: 250_000,
    /** corporates bytes per company from the register alone, force-merged: 513,567,086 B / 250,809 */
    bytesPerCompany: 2_048,
    /** rows a second through import:registry, the whole nationwide zip (292,213 rows in 757 s) */
    rowsPerSecond: 386,
    /** rows per company in the generated full files (history rows, latest=0, included) */
    rowsPerCompany: 1.17,
    /** importer peak RSS over the whole load: streams, so flat in the file size */
    importerPeakRssMiB: 684,
    /** the API process's peak RSS over the searches, match and diff */
    apiPeakRssMiB: 320,
    /** a day's diff of 4,099 rows, process start to exit, while two connections searched */
    diffRows: 4_099,
    diffSeconds: 54,
  },
} as const;

export interface CapacityInput {
  companies: number;
  /** postings kept searchable at once (every posting stays until its delete) */
  postings: number;
  /** peak searches per second across all consumers */
  searchesPerSecond: number;
  /** replicas per primary shard */
  replicas: number;
  /** vCPUs per data node */
  nodeCpus: number;
  /** RAM per data node in GiB */
  nodeRamGiB: number;
  /** the largest primary shard wanted, in GiB */
  maxShardGiB: number;
  /** the share of CPU searches may use at peak (the rest: indexing, merges, GC, headroom) */
  cpuTarget: number;
  /** the search p95 wanted at the peak rate, ms: shards are made small enough for it */
  p95TargetMs: number;
}

export interface CapacityPlan {
  /** primary size per index, GiB */
  primaryGiB: { corporates: number; jobs: number; jobDetails: number; total: number };
  /** primary shards per index */
  shards: { corporates: number; jobs: number; jobDetails: number };
  /** postings in the largest shard of jobs or corporates: what a shard searches */
  postingsPerShard: number;
  /** engine CPU per search, summed over the shards it touches */
  engineCpuMsPerSearch: number;
  /** vCPUs the peak rate needs at `cpuTarget` */
  cpus: number;
  dataNodes: number;
  /** heap per node: half the RAM, at most 31 GiB (compressed object pointers) */
  heapGiB: number;
  /** disk per node for primaries and replicas at 75% full (the rest: merges, watermarks) */
  diskGiBPerNode: number;
  /** expected search p95 at the peak rate: one shard's work, with its node at `cpuTarget` */
  p95Ms: number;
}

const GiB = 1024 ** 3;

export function capacityPlan(input: CapacityInput): CapacityPlan {
  const m = measured;
  const primary = {
    corporates:
      (input.companies * m.bytesPerCompany + input.postings * m.bytesPerPosting.corporatesNested) / GiB,
    jobs: (input.postings * m.bytesPerPosting.jobs) / GiB,
    jobDetails: (input.postings * m.bytesPerPosting.jobDetails) / GiB,
  };
  // latency: a search runs on every shard of its index in parallel, so its time is one shard's
  // share, which grows as (postings in the shard)^k, stretched by the queueing of a node at
  // `cpuTarget` (M/M/1-like: 1 / (1 - utilisation)); the most postings a shard may hold for
  // the p95 wanted follows from that
  const queueing = 1 / (1 - input.cpuTarget);
  const maxPostingsPerShard =
    m.referencePostings * (input.p95TargetMs / (m.rawP95Ms * queueing)) ** (1 / m.growthExponent);
  const forLatency = Math.ceil(input.postings / maxPostingsPerShard);
  const shards = {
    corporates: Math.max(1, Math.ceil(primary.corporates / input.maxShardGiB), forLatency),
    jobs: Math.max(1, Math.ceil(primary.jobs / input.maxShardGiB), forLatency),
    jobDetails: Math.max(1, Math.ceil(primary.jobDetails / input.maxShardGiB)),
  };
  const postingsPerShard = input.postings / Math.min(shards.corporates, shards.jobs);
  // one shard's work grows as (postings in it)^k; a search runs on every shard of its index
  const perShardCpu = m.engineCpuMsPerSearch * (postingsPerShard / m.referencePostings) ** m.growthExponent;
  const engineCpuMsPerSearch = perShardCpu * Math.max(shards.corporates, shards.jobs);
  const cpus = (input.searchesPerSecond * engineCpuMsPerSearch) / 1000 / input.cpuTarget;
  const total = primary.corporates + primary.jobs + primary.jobDetails;
  const copies = 1 + input.replicas;
  // enough nodes for the CPU, and for every copy of a shard to sit on a different node
  const dataNodes = Math.max(Math.ceil(cpus / input.nodeCpus), copies, 3);
  const diskGiBPerNode = (total * copies) / dataNodes / 0.75;
  const shardScale = (postingsPerShard / m.referencePostings) ** m.growthExponent;
  const p95Ms = m.rawP95Ms * shardScale * queueing;
  return {
    primaryGiB: { ...roundAll(primary), total: round(total) },
    shards,
    postingsPerShard: Math.round(postingsPerShard),
    engineCpuMsPerSearch: Math.round(engineCpuMsPerSearch),
    cpus: Math.ceil(cpus),
    dataNodes,
    heapGiB: Math.min(31, Math.floor(input.nodeRamGiB / 2)),
    diskGiBPerNode: Math.ceil(diskGiBPerNode),
    p95Ms: Math.round(p95Ms),
  };
}

const round = (value: number) => Math.round(value * 10) / 10;
function roundAll<T extends Record<string, number>>(values: T): T {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, round(value)])) as T;
}

/**
 * The register alone at `companies` (the nationwide file holds about 5 million): EXTRAPOLATED
 * linearly from the 250,000-company run (measured.registry), not measured at that size. The load
 * rate is one importer's on a shared two-core machine, where the engine took most of the CPU:
 * a cluster's data nodes take writes faster, and the importer is one process writing one batch
 * at a time, so this is a slow bound for one importer, not the cluster's.
 */
export interface RegistryPlan {
  extrapolatedFrom: number;
  /** corporates primary size of the register alone, GiB (force-merged; more while merges run) */
  primaryGiB: number;
  /** one full load (every prefecture) at the measured rate, hours */
  fullLoadHours: number;
  /** a day's diff of `diffRows` rows at the measured diff rate, minutes */
  diffMinutes: number;
  /** importer memory: streamed, flat in the file size */
  importerPeakRssMiB: number;
  apiPeakRssMiB: number;
}

export function registryPlan(companies: number, diffRows = 5_000): RegistryPlan {
  const r = measured.registry;
  return {
    extrapolatedFrom: r.measuredCompanies,
    primaryGiB: round((companies * r.bytesPerCompany) / GiB),
    fullLoadHours: Math.round((companies * r.rowsPerCompany) / r.rowsPerSecond / 36) / 100,
    diffMinutes: round((diffRows * (r.diffSeconds / r.diffRows)) / 60),
    importerPeakRssMiB: r.importerPeakRssMiB,
    apiPeakRssMiB: r.apiPeakRssMiB,
  };
}

/** The example docs/capacity.md works through: Japan's whole market. */
export const japan: CapacityInput = {
  companies: 5_000_000,
  postings: 40_000_000,
  searchesPerSecond: 20,
  replicas: 1,
  nodeCpus: 16,
  nodeRamGiB: 64,
  maxShardGiB: 30,
  cpuTarget: 0.5,
  p95TargetMs: 1000,
};
