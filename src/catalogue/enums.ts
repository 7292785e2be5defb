/** The enumerations of the API, exact values (listed in openapi.yaml). */
export const exchangeCodes = ['tse', 'nse', 'fse', 'sse'] as const;

export const corporateTypes = [
  'kabushiki_gaisha',
  'yugen_gaisha',
  'godo_gaisha',
  'gomei_gaisha',
  'goshi_gaisha',
  'foreign_company',
  'national_org',
  'local_gov',
  'other',
] as const;

export const revenueRanges = [
  'under_100m',
  'from_100m_to_300m',
  'from_300m_to_1b',
  'from_1b_to_5b',
  'from_5b_to_30b',
  'from_30b_to_100b',
  'over_100b',
] as const;

export const fundingSeries = [
  'seed',
  'series_a',
  'series_b',
  'series_c',
  'series_d',
  'series_e',
  'series_f',
  'series_g',
] as const;

export const paidMediaSpendRanges = [
  'none',
  'from_0_to_1m',
  'from_1m_to_3m',
  'from_3m_to_5m',
  'from_5m_to_10m',
  'from_10m_to_30m',
  'from_30m_to_50m',
  'from_50m_to_100m',
  'over_100m',
] as const;

export const sortOrders = ['asc', 'desc'] as const;
