import type { LimitsConfig } from '../config.js';

/** What exporting `records` records costs: 1,000 records per credit by default, rounded up. */
export function exportCost(config: Pick<LimitsConfig, 'exportRecordsPerCredit'>, records: number): number {
  return Math.ceil(records / config.exportRecordsPerCredit);
}
