/**
 * The Japanese labels of the API's names, the one table of them: per search, each filter key
 * (aliases included), each facet (a facet counts the values of the filter of its name, so it
 * takes that filter's label), each record field, and each enumeration value; for readers who
 * think in the words of Japanese business data (法人格, 売上高, 掲載媒体) rather than the API's
 * names. The MCP server's tool descriptions (mcp/) and the query console (the catalogue of
 * public-catalogue.ts, served as /console/catalogue.json) show them beside the API names.
 *
 * Per search, because a name can mean something else in the other search: on job search
 * `prefectureId` is the linked company's prefecture (企業の都道府県（本社）), and a posting's
 * `hasDispatchLicense` is what the posting states (派遣許可の記載), not the company's licence.
 * A job-search filter on the linked company (`corporatePrefectureId`) takes its company label
 * with 企業の in front. Brackets are full-width （）.
 *
 * test/catalogue/catalogue-labels.test.ts reads openapi.yaml and fails naming each filter key, facet,
 * record field or enumeration value without a label.
 */
import type { corporateTypes, fundingSeries, paidMediaSpendRanges, revenueRanges } from './enums.js';
import { corporateSearch, jobSearch } from './searches.js';

/** The two searches, by the name the console catalogue and the MCP server give them. */
export type SearchName = 'corporates' | 'jobs';

type LabelsOf<Values extends readonly string[]> = Readonly<Record<Values[number], string>>;

export const corporateTypeLabels: LabelsOf<typeof corporateTypes> = {
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

export const revenueRangeLabels: LabelsOf<typeof revenueRanges> = {
  under_100m: '1億円未満',
  from_100m_to_300m: '1億円以上3億円未満',
  from_300m_to_1b: '3億円以上10億円未満',
  from_1b_to_5b: '10億円以上50億円未満',
  from_5b_to_30b: '50億円以上300億円未満',
  from_30b_to_100b: '300億円以上1000億円未満',
  over_100b: '1000億円以上',
};

export const fundingSeriesLabels: LabelsOf<typeof fundingSeries> = {
  seed: 'シード',
  series_a: 'シリーズA',
  series_b: 'シリーズB',
  series_c: 'シリーズC',
  series_d: 'シリーズD',
  series_e: 'シリーズE',
  series_f: 'シリーズF',
  series_g: 'シリーズG',
};

export const paidMediaSpendLabels: LabelsOf<typeof paidMediaSpendRanges> = {
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

/** An enumeration value's label: `kabushiki_gaisha` -> 株式会社. The values of the enumerations differ from each other. */
export const valueLabels: Readonly<Record<string, string>> = {
  ...corporateTypeLabels,
  ...revenueRangeLabels,
  ...fundingSeriesLabels,
  ...paidMediaSpendLabels,
  // how an invoice registration ended (invoiceEndReason)
  cancelled: '取消',
  expired: '失効',
};

/** Company search's filters (and, prefixed, job search's filters on the linked company). */
const corporateFilterLabels: Readonly<Record<string, string>> = {
  corporateName: '企業名',
  corporateNumber: '法人番号',
  prefectureId: '都道府県（本社）',
  cityName: '市区町村',
  streetAddress: '町域・番地',
  industryCategoryId: '業種（大分類）',
  industrySubCategoryId: '業種（小分類）',
  businessCategoryId: '業態（大分類）',
  businessSubCategoryId: '業態（小分類）',
  corporateType: '法人格',
  marketCode: '上場市場',
  isListed: '上場・非上場',
  revenueRange: '売上高',
  employeeCount: '従業員数',
  capitalMillionYen: '資本金（百万円）',
  hasCorporatePhone: '電話番号の有無',
  hasCorporateWebsite: 'Webサイトの有無',
  hasCorporateEmail: 'メールアドレスの有無',
  hasFax: 'FAX番号の有無',
  hasDispatchLicense: '労働者派遣事業許可',
  hasRecruitmentLicense: '有料職業紹介事業許可',
  foundedAt: '設立日',
  employeeDiff6mMin: '従業員増減（6か月）',
  employeeDiff12m: '従業員増減（12か月）',
  employeeTransition: '従業員数の推移',
  fundingSeries: '資金調達ラウンド',
  totalAdCost: '広告費合計（円）',
  paidMediaSpend: '有料媒体の年間出稿額',
  paidMediaUsedMediaId: '出稿中の有料媒体',
  workLocationCount: '勤務地数',
  hiringOpenPostings: '掲載中の求人数',
  hiringNewPostings7d: '新規求人数（7日）',
  hiringNewPostings30d: '新規求人数（30日）',
  hiringNewPostings90d: '新規求人数（90日）',
  hiringClosedPostings30d: '終了した求人数（30日）',
  hiringNetChange30d: '求人数の純増減（30日）',
  hiringFirstPostedOn: '最初の求人の開始日',
  hiringLastPostedOn: '最新の求人の開始日',
  hiringStartedMediaId: '30日以内に掲載を始めた媒体',
  hiringStoppedMediaId: '30日以内に掲載をやめた媒体',
  hasInvoiceRecord: 'インボイス登録簿の記載',
  invoiceRegistered: 'インボイス登録（本日時点）',
  invoiceRegisteredOn: 'インボイス登録（指定日時点）',
  invoiceRegistrationDate: 'インボイス登録日',
  invoiceEndedOn: 'インボイス登録の取消・失効日',
  invoiceEndReason: 'インボイス登録の終了事由',
  hasSubsidies: '補助金の交付実績',
  subsidyCount: '補助金の件数',
  subsidyTotalYen: '補助金の合計額（円）',
  subsidyLatestOn: '最新の補助金の認定日',
  subsidyBodyId: '補助金の府省',
  hasProcurement: '国の調達の受注実績',
  procurementCount: '調達の受注件数',
  procurementTotalYen: '調達の受注合計額（円）',
  procurementLatestOn: '最新の調達の受注日',
  procurementBodyId: '調達の発注府省',
  hasCertifications: '届出・認定の実績',
  certificationKindId: '届出・認定の種類',
  certificationCount: '届出・認定の件数',
  certificationLatestOn: '最新の届出・認定の認定日',
  hasAwards: '表彰の実績',
  awardKindId: '表彰の種類',
  awardCount: '表彰の件数',
  awardLatestOn: '最新の表彰の日付',
  hasWorkplace: '職場情報の記載',
  workplaceAverageAge: '従業員の平均年齢',
  workplaceAverageTenureYears: '正社員の平均継続勤務年数',
  workplaceOvertimeHours: '月平均所定外労働時間',
  workplaceFemaleWorkerPercent: '女性労働者の割合（％）',
  workplaceFemaleManagerPercent: '女性管理職の割合（％）',
  workplaceFemaleOfficerPercent: '女性役員の割合（％）',
  workplaceMaleChildcareLeavePercent: '男性の育児休業取得率（％）',
  summary: '事業概要',
  furiganaPrefix: 'フリガナ（前方一致）',
  jobTitle: '求人の職種名（タイトル）',
  jobMediaId: '求人の掲載媒体',
  jobEmploymentTypeId: '求人の雇用形態',
  jobSalary: '求人の給与下限（円）',
  jobCategoryId: '求人の職種（大分類）',
  jobSubCategoryId: '求人の職種（小分類）',
  jobOpenedOn: '求人の掲載開始日',
  jobDeadlineOn: '求人の応募締切日',
  jobCreatedAt: '求人の取得日',
  jobAdPlan: '求人の広告プラン',
  jobHasContactEmail: '求人の連絡先メールの有無',
  jobHasContactPhone: '求人の連絡先電話の有無',
  jobHasDispatchLicense: '求人の派遣許可の記載',
  jobHasRecruitmentLicense: '求人の職業紹介許可の記載',
  jobHiringPlanMin: '求人の採用予定人数',
  jobDescription: '求人の本文（直近1か月）',
  updatedAt: '企業情報の更新日時',
  includeClosed: '閉鎖した法人も含める',
};

/** Job search's own filters; the `corporate…` ones not listed here come from the company table. */
const jobFilterLabels: Readonly<Record<string, string>> = {
  jobTitle: '職種名（求人タイトル）',
  corporateName: '企業名',
  corporateNumber: '法人番号',
  mediaId: '掲載媒体',
  jobCategoryId: '職種（大分類）',
  jobSubCategoryId: '職種（小分類）',
  employmentTypeId: '雇用形態',
  adPlan: '広告プラン',
  salary: '給与下限（円）',
  hasDispatchLicense: '派遣許可の記載',
  hasRecruitmentLicense: '職業紹介許可の記載',
  hasContactEmail: '連絡先メールの有無',
  hasContactPhone: '連絡先電話の有無',
  jobCreatedAt: '取得日',
  jobOpenedOn: '掲載開始日',
  jobDeadlineOn: '応募締切日',
  hiringPlanMin: '採用予定人数',
  jobDescription: '求人本文（直近1か月）',
  summary: '企業の事業概要',
  updatedAt: '求人情報の更新日時',
  includeClosed: '閉鎖した法人の求人も含める',
};

/** The search's canonical nested key of a filter key or alias (`mediaId` -> `jobMediaId` on company search). */
function canonicalKey(search: SearchName, key: string): string {
  const filters = search === 'corporates' ? corporateSearch.filters : jobSearch.filters;
  return filters.find((def) => def.nested.includes(key))?.nested[0] ?? key;
}

/**
 * The label of a filter key (or alias) of a search; undefined when the table lacks it.
 *
 *   ('corporates', 'prefectureId')    -> '都道府県（本社）'
 *   ('jobs', 'corporatePrefectureId') -> '企業の都道府県（本社）'
 *   ('jobs', 'prefectureId')          -> '企業の都道府県（本社）' (an alias of the one above)
 */
export function filterLabel(search: SearchName, name: string): string | undefined {
  const key = canonicalKey(search, name);
  if (search === 'corporates') return corporateFilterLabels[key];
  const own = jobFilterLabels[key];
  if (own !== undefined || !key.startsWith('corporate')) return own;
  const companyKey = `${key.charAt(9).toLowerCase()}${key.slice(10)}`;
  const company = corporateFilterLabels[companyKey];
  return company === undefined ? undefined : `企業の${company}`;
}

/**
 * Company records' fields (`Corporate` in openapi.yaml) that are not a filter of company
 * search, or whose filter label does not suit a column; the others take their filter's label.
 */
const corporateFieldLabels: Readonly<Record<string, string>> = {
  hiringActivity: '採用動向（求人の増減）',
  closed: '閉鎖（登記上）',
  closedOn: '閉鎖日',
  closeReason: '閉鎖事由',
  successorCorporateNumber: '承継先の法人番号',
  registeredOn: '法人番号指定日',
  englishName: '英語表記',
  invoice: '適格請求書発行事業者の登録',
  subsidies: '補助金の交付実績（gBizINFO）',
  procurement: '国の調達の受注実績（gBizINFO）',
  certifications: '届出・認定（gBizINFO）',
  awards: '表彰（gBizINFO）',
  workplace: '職場情報（gBizINFO）',
  name: '企業名',
  furigana: 'フリガナ',
  corporateTypeLabel: '法人格（名称）',
  postalCode: '郵便番号',
  prefectureName: '都道府県名',
  industryCategoryName: '業種（大分類）名',
  industrySubCategoryName: '業種（小分類）名',
  businessCategoryName: '業態（大分類）名',
  businessSubCategoryName: '業態（小分類）名',
  phoneNumber: '電話番号',
  fax: 'FAX番号',
  websiteUrl: 'Webサイト',
  email: 'メールアドレス',
  revenueRangeLabel: '売上高（名称）',
  markets: '上場市場',
  fiscalMonth: '決算月',
  ceoName: '代表者名',
  emp1MAgo: '従業員数（1か月前）',
  emp7MAgo: '従業員数（7か月前）',
  emp13MAgo: '従業員数（13か月前）',
  fundingSeriesLabel: '資金調達ラウンド（名称）',
  paidMediaSpendLabel: '有料媒体の年間出稿額（名称）',
  paidMedias: '出稿中の有料媒体',
};

/** Posting records' fields (`Job`, `JobDetail`), on the same rule. */
const jobFieldLabels: Readonly<Record<string, string>> = {
  id: '求人ID',
  shortId: '求人ID（短縮）',
  mediaName: '掲載媒体名',
  title: '職種名（求人タイトル）',
  url: '求人ページのURL',
  jobPostingUrl: '自社採用ページのURL',
  salaryMin: '給与（下限）',
  salaryMax: '給与（上限）',
  salaryUnit: '給与の単位',
  hiringPlanMin: '採用予定人数（下限）',
  hiringPlanMax: '採用予定人数（上限）',
  employmentTypeName: '雇用形態名',
  jobCategoryName: '職種（大分類）名',
  jobSubCategoryName: '職種（小分類）名',
  contactName: '連絡先の担当者名',
  contactEmail: '連絡先メール',
  contactPhoneNumber: '連絡先電話番号',
  workLocation: '勤務地',
  description: '求人本文',
  descriptionCollectedAt: '求人本文の取得日時',
  descriptionSnippets: '求人本文の抜粋',
};

/**
 * The label of a record field of a search's records; undefined when neither table has it.
 *
 *   ('corporates', 'phoneNumber') -> '電話番号'
 *   ('jobs', 'updatedAt')         -> '求人情報の更新日時' (the filter's label)
 */
export function fieldLabel(search: SearchName, field: string): string | undefined {
  const own = search === 'corporates' ? corporateFieldLabels[field] : jobFieldLabels[field];
  return own ?? filterLabel(search, field);
}
