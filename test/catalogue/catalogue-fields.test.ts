/**
 * Which record field each request filter acts on, pinned by a table written from the API
 * contract's field lists (its Corporate and Job records; where the contract names no Job
 * field, the jobs mapping's name) and compared with the field the catalogue queries. The
 * catalogue is never used to build the expectation: a filter wired to the wrong field fails
 * here even when that field exists in the mapping.
 */
import { describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';

/** Where a field lives, seen from the searched record. */
type Where = 'own' | 'linked posting' | 'linked company';

/** [request names, record field, where] */
type Row = [string[], string, Where];

const or = (stem: string) => [`${stem}Or`, `${stem}Not`];
const minMax = (stem: string) => [`${stem}Min`, `${stem}Max`];
const fromTo = (stem: string) => [`${stem}From`, `${stem}To`];
const partial = (stem: string) => [`${stem}PartialMatchOr`, `${stem}PartialMatchNot`];

const companySearchTable: Row[] = [
  // the company itself (Corporate record)
  [or('corporateName'), 'name', 'own'],
  [partial('corporateName'), 'name', 'own'],
  [['corporateNumberOr'], 'corporateNumber', 'own'],
  [or('prefectureId'), 'prefectureId', 'own'],
  [partial('cityName'), 'cityName', 'own'],
  [partial('streetAddress'), 'streetAddress', 'own'],
  [or('industryCategoryId'), 'industryCategoryId', 'own'],
  [or('industrySubCategoryId'), 'industrySubCategoryId', 'own'],
  [or('businessCategoryId'), 'businessCategoryId', 'own'],
  [or('businessSubCategoryId'), 'businessSubCategoryId', 'own'],
  [or('corporateType'), 'corporateType', 'own'],
  [or('marketCode'), 'markets.code', 'own'],
  [['isListed'], 'markets.code', 'own'],
  [or('revenueRange'), 'revenueRange', 'own'],
  [minMax('employeeCount'), 'employeeCount', 'own'],
  [minMax('capitalMillionYen'), 'capitalMillionYen', 'own'],
  // an addition of this API's to the record (the change feed), not a contract field
  [fromTo('updatedAt'), 'updatedAt', 'own'],
  [['hasCorporatePhone'], 'phoneNumber', 'own'],
  [['hasCorporateWebsite'], 'websiteUrl', 'own'],
  [['hasCorporateEmail'], 'email', 'own'],
  [['hasFax'], 'fax', 'own'],
  [['hasDispatchLicense'], 'hasDispatchLicense', 'own'],
  [['hasRecruitmentLicense'], 'hasRecruitmentLicense', 'own'],
  [fromTo('foundedAt'), 'foundedAt', 'own'],
  [minMax('employeeDiff6mMin'), 'employeeDiff6mMin', 'own'],
  [minMax('employeeDiff12m'), 'employeeDiff12m', 'own'],
  [partial('employeeTransition'), 'employeeTransition', 'own'],
  [or('fundingSeries'), 'fundingSeries', 'own'],
  [minMax('totalAdCost'), 'totalAdCost', 'own'],
  [or('paidMediaSpend'), 'paidMediaSpend', 'own'],
  [or('paidMediaUsedMediaId'), 'paidMedias.mediaId', 'own'],
  [['summaryPartialMatchOr', 'summaryPartialMatchAnd', 'summaryPartialMatchNot'], 'summary', 'own'],
  // not a record field: the internal key of the reading (furigana), docs/index-documents.md
  [['furiganaPrefixOr'], 'readingKey', 'own'],
  // closed companies are left out unless it is true (the register's close flag)
  [['includeClosed'], 'closed', 'own'],
  // additions of this API's: the company's hiring activity (the record's hiringActivity)
  [minMax('hiringOpenPostings'), 'hiringActivity.openPostings', 'own'],
  [minMax('hiringNewPostings7d'), 'hiringActivity.newPostings7d', 'own'],
  [minMax('hiringNewPostings30d'), 'hiringActivity.newPostings30d', 'own'],
  [minMax('hiringNewPostings90d'), 'hiringActivity.newPostings90d', 'own'],
  [minMax('hiringClosedPostings30d'), 'hiringActivity.closedPostings30d', 'own'],
  [minMax('hiringNetChange30d'), 'hiringActivity.netChange30d', 'own'],
  [fromTo('hiringFirstPostedOn'), 'hiringActivity.firstPostedOn', 'own'],
  [fromTo('hiringLastPostedOn'), 'hiringActivity.lastPostedOn', 'own'],
  [or('hiringStartedMediaId'), 'hiringActivity.mediaStarted30d', 'own'],
  [or('hiringStoppedMediaId'), 'hiringActivity.mediaStopped30d', 'own'],
  // additions of this API's: the invoice register's row of the company (the record's invoice)
  [['hasInvoiceRecord'], 'invoice.registrationNumber', 'own'],
  [['invoiceRegistered'], 'invoice.registeredOn', 'own'],
  [['invoiceRegisteredOn'], 'invoice.registeredOn', 'own'],
  [fromTo('invoiceRegistrationDate'), 'invoice.registeredOn', 'own'],
  [fromTo('invoiceEndedOn'), 'invoice.endedOn', 'own'],
  [or('invoiceEndReason'), 'invoice.endReason', 'own'],
  // additions of this API's: gBizINFO's summaries (the record's subsidies, procurement)
  [['hasSubsidies'], 'subsidies.count', 'own'],
  [minMax('subsidyCount'), 'subsidies.count', 'own'],
  [minMax('subsidyTotalYen'), 'subsidies.totalYen', 'own'],
  [fromTo('subsidyLatestOn'), 'subsidies.latestOn', 'own'],
  [or('subsidyBodyId'), 'subsidies.bodyIds', 'own'],
  [['hasProcurement'], 'procurement.count', 'own'],
  [minMax('procurementCount'), 'procurement.count', 'own'],
  [minMax('procurementTotalYen'), 'procurement.totalYen', 'own'],
  [fromTo('procurementLatestOn'), 'procurement.latestOn', 'own'],
  [or('procurementBodyId'), 'procurement.bodyIds', 'own'],
  // additions of this API's: gBizINFO's certifications, awards, workplace figures
  [['hasCertifications'], 'certifications.count', 'own'],
  [or('certificationKindId'), 'certifications.kindIds', 'own'],
  [minMax('certificationCount'), 'certifications.count', 'own'],
  [fromTo('certificationLatestOn'), 'certifications.latestOn', 'own'],
  [['hasAwards'], 'awards.count', 'own'],
  [or('awardKindId'), 'awards.kindIds', 'own'],
  [minMax('awardCount'), 'awards.count', 'own'],
  [fromTo('awardLatestOn'), 'awards.latestOn', 'own'],
  [['hasWorkplace'], 'workplace.figures', 'own'],
  [minMax('workplaceAverageAge'), 'workplace.averageAge', 'own'],
  [minMax('workplaceAverageTenureYears'), 'workplace.averageTenureYears', 'own'],
  [minMax('workplaceOvertimeHours'), 'workplace.overtimeHoursPerMonth', 'own'],
  [minMax('workplaceFemaleWorkerPercent'), 'workplace.femaleWorkerPercent', 'own'],
  [minMax('workplaceFemaleManagerPercent'), 'workplace.femaleManagerPercent', 'own'],
  [minMax('workplaceFemaleOfficerPercent'), 'workplace.femaleOfficerPercent', 'own'],
  [minMax('workplaceMaleChildcareLeavePercent'), 'workplace.maleChildcareLeavePercent', 'own'],
  // the company's postings (Job record fields)
  [partial('jobTitle'), 'title', 'linked posting'],
  [or('jobMediaId'), 'mediaId', 'linked posting'],
  [or('jobEmploymentTypeId'), 'employmentTypeId', 'linked posting'],
  [minMax('jobSalary'), 'salaryMin', 'linked posting'],
  [or('jobCategoryId'), 'jobCategoryId', 'linked posting'],
  [or('jobSubCategoryId'), 'jobSubCategoryId', 'linked posting'],
  [fromTo('jobOpenedOn'), 'jobOpenedOn', 'linked posting'],
  [fromTo('jobDeadlineOn'), 'jobDeadlineOn', 'linked posting'],
  [fromTo('jobCreatedAt'), 'jobCreatedAt', 'linked posting'],
  [['jobAdPlanOr'], 'adPlan', 'linked posting'],
  [['jobHasContactEmail'], 'hasContactEmail', 'linked posting'],
  [['jobHasContactPhone'], 'hasContactPhone', 'linked posting'],
  [['jobHasDispatchLicense'], 'hasDispatchLicense', 'linked posting'],
  [['jobHasRecruitmentLicense'], 'hasRecruitmentLicense', 'linked posting'],
  [['jobHiringPlanMinAtLeast'], 'hiringPlanMin', 'linked posting'],
  [
    ['jobDescriptionPartialMatchOr', 'jobDescriptionPartialMatchAnd', 'jobDescriptionPartialMatchNot'],
    'description',
    'linked posting',
  ],
];

const jobSearchTable: Row[] = [
  // the posting itself (Job record)
  [or('jobTitle'), 'title', 'own'],
  [partial('jobTitle'), 'title', 'own'],
  [or('corporateName'), 'corporateName', 'own'],
  [partial('corporateName'), 'corporateName', 'own'],
  [or('mediaId'), 'mediaId', 'own'],
  [or('jobCategoryId'), 'jobCategoryId', 'own'],
  [or('jobSubCategoryId'), 'jobSubCategoryId', 'own'],
  [or('employmentTypeId'), 'employmentTypeId', 'own'],
  [['adPlanOr'], 'adPlan', 'own'],
  [['salaryMin', 'salaryMax'], 'salaryMin', 'own'],
  [['hasDispatchLicense'], 'hasDispatchLicense', 'own'],
  [['hasRecruitmentLicense'], 'hasRecruitmentLicense', 'own'],
  [['hasContactEmail'], 'contactEmail', 'own'],
  [['hasContactPhone'], 'contactPhoneNumber', 'own'],
  [fromTo('jobCreatedAt'), 'jobCreatedAt', 'own'],
  // an addition of this API's to the record (the change feed), not a contract field
  [fromTo('updatedAt'), 'updatedAt', 'own'],
  [fromTo('jobOpenedOn'), 'jobOpenedOn', 'own'],
  [fromTo('jobDeadlineOn'), 'jobDeadlineOn', 'own'],
  [['corporateNumberOr'], 'corporateNumber', 'own'],
  [['hiringPlanMinAtLeast'], 'hiringPlanMin', 'own'],
  [
    ['jobDescriptionPartialMatchOr', 'jobDescriptionPartialMatchAnd', 'jobDescriptionPartialMatchNot'],
    'description',
    'own',
  ],
  // the posting's company (Corporate record fields)
  [
    ['summaryPartialMatchOr', 'summaryPartialMatchAnd', 'summaryPartialMatchNot'],
    'summary',
    'linked company',
  ],
  [or('corporatePrefectureId'), 'prefectureId', 'linked company'],
  [partial('corporateCityName'), 'cityName', 'linked company'],
  [partial('corporateStreetAddress'), 'streetAddress', 'linked company'],
  [or('corporateIndustryCategoryId'), 'industryCategoryId', 'linked company'],
  [or('corporateIndustrySubCategoryId'), 'industrySubCategoryId', 'linked company'],
  [or('corporateBusinessCategoryId'), 'businessCategoryId', 'linked company'],
  [or('corporateBusinessSubCategoryId'), 'businessSubCategoryId', 'linked company'],
  [or('corporateCorporateType'), 'corporateType', 'linked company'],
  [or('corporateMarketCode'), 'markets.code', 'linked company'],
  [['corporateIsListed'], 'markets.code', 'linked company'],
  [or('corporateRevenueRange'), 'revenueRange', 'linked company'],
  [minMax('corporateCapitalMillionYen'), 'capitalMillionYen', 'linked company'],
  [minMax('corporateEmployeeCount'), 'employeeCount', 'linked company'],
  [['corporateHasCorporateWebsite'], 'websiteUrl', 'linked company'],
  [['corporateHasCorporatePhone'], 'phoneNumber', 'linked company'],
  [['corporateHasCorporateEmail'], 'email', 'linked company'],
  [['corporateHasFax'], 'fax', 'linked company'],
  [[...or('corporateFundingSeries'), ...or('fundingSeries')], 'fundingSeries', 'linked company'],
  [minMax('corporateTotalAdCost'), 'totalAdCost', 'linked company'],
  [or('corporatePaidMediaSpend'), 'paidMediaSpend', 'linked company'],
  [or('corporatePaidMediaUsedMediaId'), 'paidMedias.mediaId', 'linked company'],
  [minMax('corporateEmployeeDiff6mMin'), 'employeeDiff6mMin', 'linked company'],
  [minMax('corporateEmployeeDiff12m'), 'employeeDiff12m', 'linked company'],
  [partial('corporateEmployeeTransition'), 'employeeTransition', 'linked company'],
  // postings of closed companies are left out unless it is true
  [['includeClosed'], 'closed', 'linked company'],
];

/** The index path of a table row: postings and the job's company copy are nested objects. */
function indexPath(field: string, where: Where, search: SearchCatalogue): string {
  if (where === 'own') return field;
  if (where === 'linked posting' && search.index === 'corporates') return `postings.${field}`;
  if (where === 'linked company' && search.index === 'jobs') return `corporate.${field}`;
  throw new Error(`${where} is not a scope of ${search.index}`);
}

describe.each([
  ['company search', corporateSearch, companySearchTable],
  ['job search', jobSearch, jobSearchTable],
] as const)('%s: every request name acts on the field the contract means', (_label, search, table) => {
  const queried = new Map<string, string>();
  // a sub-field (.substring for contains, .folded for an exact name) is of the field it names
  for (const def of search.filters)
    for (const name of Object.keys(def.flat))
      queried.set(name, def.field.replace(/\.(substring|folded)$/, ''));

  it.each(table.flatMap(([names, field, where]) => names.map((name) => [name, field, where] as const)))(
    '%s -> %s (%s)',
    (name, field, where) => {
      expect(queried.get(name), name).toBe(indexPath(field, where, search));
    },
  );

  it('the table names every flat filter the catalogue offers, and no other', () => {
    const tabled = table.flatMap(([names]) => names).sort();
    expect(tabled).toEqual([...queried.keys()].sort());
  });
});
