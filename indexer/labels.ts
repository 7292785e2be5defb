/** Display labels of the contract's enumerations (src/catalogue/enums.ts), written beside each code. */
export const corporateTypeLabels: Record<string, string> = {
  kabushiki_gaisha: '株式会社',
  yugen_gaisha: '有限会社',
  godo_gaisha: '合同会社',
  gomei_gaisha: '合名会社',
  goshi_gaisha: '合資会社',
  foreign_company: '外国会社',
  national_org: '国の機関',
  local_gov: '地方公共団体',
  other: 'その他',
};

export const revenueRangeLabels: Record<string, string> = {
  under_100m: '1億円未満',
  from_100m_to_300m: '1億円以上3億円未満',
  from_300m_to_1b: '3億円以上10億円未満',
  from_1b_to_5b: '10億円以上50億円未満',
  from_5b_to_30b: '50億円以上300億円未満',
  from_30b_to_100b: '300億円以上1000億円未満',
  over_100b: '1000億円以上',
};

export const fundingSeriesLabels: Record<string, string> = {
  seed: 'シード',
  series_a: 'シリーズA',
  series_b: 'シリーズB',
  series_c: 'シリーズC',
  series_d: 'シリーズD',
  series_e: 'シリーズE',
  series_f: 'シリーズF',
  series_g: 'シリーズG',
};

export const paidMediaSpendLabels: Record<string, string> = {
  none: 'なし',
  from_0_to_1m: '0円超100万円未満',
  from_1m_to_3m: '100万円以上300万円未満',
  from_3m_to_5m: '300万円以上500万円未満',
  from_5m_to_10m: '500万円以上1000万円未満',
  from_10m_to_30m: '1000万円以上3000万円未満',
  from_30m_to_50m: '3000万円以上5000万円未満',
  from_50m_to_100m: '5000万円以上1億円未満',
  over_100m: '1億円以上',
};

export const workLocationKinds = ['onsite', 'remote', 'client_site', 'one_off', 'unknown'] as const;
export const salaryUnits = ['yearly', 'monthly', 'daily', 'hourly'] as const;
