/**
 * A published bench run read beside the one it replaces (bench/report.ts
 * `besidePreviousMarkdown`): each ratio with its value in the earlier report's table, a dash
 * where either run lacks it, the earlier run's time and commit named. Pure: the earlier report
 * is written here in the published shape.
 */
import { describe, expect, it } from 'vitest';
import { type BenchReport, besidePreviousMarkdown } from '../../bench/report.js';

const previous = `# Benchmark, 2026-12-01T01:53:35.220Z

Data set: 100,000 companies, 1,000,000 postings (seed 1).
Machine: 2 x AMD EPYC, 24 GiB RAM, Linux; Node v20.20.2; OpenSearch 3.3.2 (heap 2g); code at 2d591d4.

## Ratios (targets: docs/decisions/performance-targets.md)

| measure | value | target | met |
|---|---|---|---|
| search p50 API/raw, c=1 | 2.36 | <= 1.15 | no |
| masters throughput API/bare Express | 0.56 | >= 0.80 | no |
| a measure dropped since | 3.1 | <= 2 | no |

## Query mix

| connections | API req/s | raw req/s | API p50 / p95 / p99 ms | raw p50 / p95 / p99 ms | API non-2xx | CPU |
|---|---|---|---|---|---|---|
| 1 | 118.7 | 162.1 | 7.7 / 17.8 / 34.4 | 3.3 / 22.1 / 24.2 | 0 | 2.72 / 7.57 |
`;

const report = {
  ratios: [
    { what: 'search p50 API/raw, c=1', value: 2.1, target: '<= 1.15', met: false },
    { what: 'masters throughput API/bare Express', value: 1.7, target: '>= 0.80', met: true },
    { what: 'a measure new in this run', value: 0.9, target: '>= 0.85', met: true },
  ],
} as BenchReport;

describe('a published run beside the previous one', () => {
  it('lists each ratio of either run with both values', () => {
    const lines = besidePreviousMarkdown(report, previous);
    expect(lines).toContain(
      '## Beside the previous published run (2026-12-01T01:53:35.220Z, code at 2d591d4)',
    );
    expect(lines).toContain('| search p50 API/raw, c=1 | 2.36 | 2.1 | <= 1.15 | no |');
    expect(lines).toContain('| masters throughput API/bare Express | 0.56 | 1.7 | >= 0.80 | yes |');
    expect(lines).toContain('| a measure new in this run | - | 0.9 | >= 0.85 | yes |');
    expect(lines).toContain('| a measure dropped since | 3.1 | - | - | - |');
    // neither the earlier table's header nor the query mix's table is read as a ratio
    expect(lines.filter((line) => line.startsWith('| measure |'))).toEqual([
      '| measure | previous | this run | target | met now |',
    ]);
    expect(lines.some((line) => line.startsWith('| 1 |'))).toBe(false);
  });

  it('adds nothing when the earlier report has no ratios table', () => {
    expect(besidePreviousMarkdown(report, '# Benchmark, x\n\nno table here\n')).toEqual([]);
  });
});
