/**
 * The filters of job search (docs/api.md, "Filters"; docs/decisions/filters.md), declared once. Company
 * conditions reuse the company-search declarations on the job's denormalised `corporate` object.
 */
import { companyAttributeFilters as c } from './corporate-filters.js';
import { define, items, masters, onJobCorporate } from './define.js';
import type { FilterDef } from './types.js';

const job = 'job' as const;

/**
 * In job search the company keys of the nested form are accepted beside the `corporate…` ones
 * (filters.prefectureId and filters.corporatePrefectureId alike), so a
 * `filters` object written for company search means the same here.
 */
function linked(def: FilterDef, extra: Parameters<typeof onJobCorporate>[1] = {}): FilterDef {
  return onJobCorporate(def, { ...extra, aliases: [...def.nested, ...(extra.aliases ?? [])] });
}

export const jobFilters: readonly FilterDef[] = [
  define('jobTitle', 'exact', {
    scope: job,
    field: 'title',
    description: 'Job title equals the string exactly.',
  }),
  define('jobTitle', 'contains', {
    scope: job,
    field: 'title.substring',
    description: 'Job title contains the string.',
  }),
  define('corporateName', 'exact', {
    scope: job,
    field: 'corporateName.folded',
    description:
      'Name of the linked company equals the string, width, case and compatibility forms folded (㈱ = (株)) as the contains filters fold them.',
    hook: 'compared folded as the contains filters are (the .folded sub-field: ㈱ = (株), width, case)',
  }),
  define('corporateName', 'contains', {
    scope: job,
    field: 'corporateName.substring',
    description: 'Name of the linked company contains the string.',
  }),
  define('mediaId', 'ids', {
    master: masters.media,
    scope: job,
    field: 'mediaId',
    description: 'Job medium (media master id).',
    aliases: ['jobMediaId'],
    hook: 'nested alias jobMediaId (both names are accepted)',
  }),
  define('jobCategoryId', 'ids', {
    master: masters.jobCategories,
    scope: job,
    field: 'jobCategoryId',
    description: 'Major job category (job-categories master id).',
  }),
  define('jobSubCategoryId', 'ids', {
    master: masters.jobSubCategories,
    scope: job,
    field: 'jobSubCategoryId',
    description: 'Minor job category (job-categories master sub-category id).',
  }),
  define('employmentTypeId', 'ids', {
    master: masters.employmentTypes,
    scope: job,
    field: 'employmentTypeId',
    description: 'Employment type (employment-types master id).',
    aliases: ['jobEmploymentTypeId'],
    hook: 'nested alias jobEmploymentTypeId (both names are accepted)',
  }),
  define('adPlan', 'exact', {
    scope: job,
    field: 'adPlan',
    ops: ['any'],
    description: 'Ad plan name.',
    hook: 'Or only: the contract names no adPlanNot',
  }),
  define('salary', 'range', {
    scope: job,
    field: 'salaryMin',
    item: items.yen,
    description: 'Minimum salary of the posting (yen), inclusive bounds.',
    hook: 'flat salaryMin/salaryMax are both bounds on the posting minimum salary (salaryMin)',
  }),
  define('hasDispatchLicense', 'flag', {
    scope: job,
    field: 'hasDispatchLicense',
    description: 'true: the posting states a staffing-dispatch license; false: it does not.',
  }),
  define('hasRecruitmentLicense', 'flag', {
    scope: job,
    field: 'hasRecruitmentLicense',
    description: 'true: the posting states a placement license; false: it does not.',
  }),
  define('hasContactEmail', 'presence', {
    scope: job,
    field: 'contactEmail',
    description: 'true: the posting has a contact e-mail; false: it has none.',
  }),
  define('hasContactPhone', 'presence', {
    scope: job,
    field: 'contactPhoneNumber',
    description: 'true: the posting has a contact phone number; false: it has none.',
  }),
  define('jobCreatedAt', 'dateRange', {
    scope: job,
    field: 'jobCreatedAt',
    description: 'Date the posting was collected, inclusive bounds.',
  }),
  define('jobOpenedOn', 'dateRange', {
    scope: job,
    field: 'jobOpenedOn',
    description: 'Date the posting opened, inclusive bounds.',
  }),
  define('jobDeadlineOn', 'dateRange', {
    scope: job,
    field: 'jobDeadlineOn',
    description: 'Application deadline, inclusive bounds.',
  }),
  define('corporateNumber', 'exact', {
    scope: job,
    field: 'corporateNumber',
    item: items.corporateNumber,
    ops: ['any'],
    description: '13-digit corporate number of the linked company.',
    hook: 'Or only: the contract names no corporateNumberNot',
  }),
  define('hiringPlanMin', 'range', {
    scope: job,
    field: 'hiringPlanMin',
    item: items.count,
    ops: ['min'],
    flat: { hiringPlanMinAtLeast: 'min' },
    description: 'Minimum planned hires is at least this many.',
    hook: 'flat name hiringPlanMinAtLeast is a lower bound only; nested filters.hiringPlanMin.min',
  }),
  define('jobDescription', 'detailText', {
    scope: job,
    field: 'description',
    description:
      'Detail text, collected within the last month, contains the strings (Or: any, And: all, Not: none).',
    collectedAtField: 'descriptionCollectedAt',
    hook: 'only text with descriptionCollectedAt >= now-1M/d is seen, enforced in the query',
  }),
  {
    ...c.summary,
    scope: 'jobCorporate',
    field: 'corporate.summary',
    description:
      'Business summary of the linked company contains the strings (Or: any, And: all, Not: none).',
  },

  linked(c.prefectureId),
  linked(c.cityName),
  linked(c.streetAddress),
  linked(c.industryCategoryId),
  linked(c.industrySubCategoryId),
  linked(c.businessCategoryId),
  linked(c.businessSubCategoryId),
  linked(c.corporateType),
  linked(c.marketCode),
  linked(c.isListed),
  linked(c.revenueRange),
  linked(c.capitalMillionYen),
  linked(c.employeeCount),
  linked(c.hasCorporateWebsite),
  linked(c.hasCorporatePhone),
  linked(c.hasCorporateEmail),
  linked(c.hasFax),
  linked(c.fundingSeries, {
    flatAliases: { fundingSeriesOr: 'any', fundingSeriesNot: 'none' },
    hook: 'flat aliases fundingSeriesOr/fundingSeriesNot (the flat spelling of fundingSeries)',
  }),
  linked(c.totalAdCost),
  linked(c.paidMediaSpend),
  linked(c.paidMediaUsedMediaId),
  linked(c.employeeDiff6mMin),
  linked(c.employeeDiff12m),
  linked(c.employeeTransition),
  linked(c.workLocationCount, {
    hook: 'nested form only (filters.workLocationCount / corporateWorkLocationCount)',
  }),
  define('includeClosed', 'inclusion', {
    scope: 'jobCorporate',
    field: 'corporate.closed',
    description:
      'true: postings of closed companies (closed in the corporate-number register) are included too; absent or false: they are left out of the results, counts, facets and exports.',
    hook: 'an inclusion on the linked company: its absence is the condition, request-wide',
  }),
  define('updatedAt', 'dateRange', {
    scope: job,
    field: 'updatedAt',
    item: items.dateOrInstant,
    description:
      'When the posting last changed in this API (records carry it as updatedAt). A date (YYYY-MM-DD) is a whole day in Japan time; a date-time (RFC 3339 with offset) is that exact instant, for fetching what changed since the last sync.',
  }),
];
