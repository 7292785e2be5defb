/**
 * gBizINFO's kinds of record as the service keeps them on a company (indexer/gbizinfo/,
 * docs/public-records.md): each kind's summary is the company field of its name and, as JSON
 * text, the doc value `<kind>Record` a search splices into the record (./records.ts). The key
 * lists give the record's key order.
 *
 *   summaryKeys.workplace // ['figures', 'averageAge', ...]
 */
export const gbizinfoKinds = ['subsidies', 'procurement', 'certifications', 'awards', 'workplace'] as const;
export type GbizinfoKind = (typeof gbizinfoKinds)[number];

const moneyKeys = ['count', 'totalYen', 'latestOn', 'bodyIds'] as const;
const listedKeys = ['count', 'kindIds', 'latestOn', 'items'] as const;

/** The figures of the workplace record, in record order. */
export const workplaceFigures = [
  'averageAge',
  'averageTenureYears',
  'overtimeHoursPerMonth',
  'femaleWorkerPercent',
  'femaleManagerPercent',
  'femaleOfficerPercent',
  'maleChildcareLeavePercent',
] as const;
export type WorkplaceFigure = (typeof workplaceFigures)[number];

export const summaryKeys: Record<GbizinfoKind, readonly string[]> = {
  subsidies: moneyKeys,
  procurement: moneyKeys,
  certifications: listedKeys,
  awards: listedKeys,
  workplace: ['figures', ...workplaceFigures],
};

/** The keys of one certification's or award's entry in `items`. */
export const listedItemKeys = ['kindId', 'title', 'on', 'expiresOn', 'bodyId'] as const;

/** The summary key every company holding the kind has: the `has…` filters' and the sweep's field. */
export function presenceField(kind: GbizinfoKind): string {
  return `${kind}.${kind === 'workplace' ? 'figures' : 'count'}`;
}
