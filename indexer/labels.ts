/**
 * Display labels of the contract's enumerations (src/catalogue/enums.ts), written beside each
 * code in the records: the one table of them is src/catalogue/labels.ts, which the console and
 * the MCP server show too.
 */
export {
  corporateTypeLabels,
  fundingSeriesLabels,
  paidMediaSpendLabels,
  revenueRangeLabels,
} from '../src/catalogue/labels.js';

export const workLocationKinds = ['onsite', 'remote', 'client_site', 'one_off', 'unknown'] as const;
export const salaryUnits = ['yearly', 'monthly', 'daily', 'hourly'] as const;
