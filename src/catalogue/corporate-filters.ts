/**
 * The filters of company search (docs/api.md, "Filters"; docs/decisions/filters.md), declared once.
 * `companyAttributeFilters` are reused by job search on the job's `corporate` object.
 */

import { define, items, masters } from './define.js';
import { corporateTypes, fundingSeries, paidMediaSpendRanges, revenueRanges } from './enums.js';
import { presenceField } from './gbizinfo-kinds.js';
import type { FilterDef, SchemaObject } from './types.js';

const company = 'company' as const;
const posting = 'posting' as const;

/** Company attributes, shared with job search (there prefixed `corporate…`). */
export const companyAttributeFilters = {
  prefectureId: define('prefectureId', 'ids', {
    master: masters.prefectures,
    scope: company,
    field: 'prefectureId',
    description: 'Prefecture of the head office (prefecture master id, JIS code 1-47).',
  }),
  cityName: define('cityName', 'contains', {
    scope: company,
    field: 'cityName.substring',
    description: 'City name contains the string.',
  }),
  streetAddress: define('streetAddress', 'contains', {
    scope: company,
    field: 'streetAddress.substring',
    description: 'Address after the city contains the string.',
  }),
  industryCategoryId: define('industryCategoryId', 'ids', {
    master: masters.industries,
    scope: company,
    field: 'industryCategoryId',
    description: 'Major industry class (industries master id).',
  }),
  industrySubCategoryId: define('industrySubCategoryId', 'ids', {
    master: masters.industrySubCategories,
    scope: company,
    field: 'industrySubCategoryId',
    description: 'Minor industry class (industries master sub-category id).',
  }),
  businessCategoryId: define('businessCategoryId', 'ids', {
    master: masters.businessTypes,
    scope: company,
    field: 'businessCategoryId',
    description: 'Major business-type class (business-types master id).',
  }),
  businessSubCategoryId: define('businessSubCategoryId', 'ids', {
    master: masters.businessSubCategories,
    scope: company,
    field: 'businessSubCategoryId',
    description: 'Minor business-type class (business-types master sub-category id).',
  }),
  corporateType: define('corporateType', 'exact', {
    scope: company,
    field: 'corporateType',
    item: items.enumOf(corporateTypes),
    description: 'Legal form of the company.',
  }),
  marketCode: define('marketCode', 'exact', {
    master: masters.markets,
    scope: company,
    field: 'markets.code',
    item: { type: 'string', minLength: 1, maxLength: 50 },
    description: 'Listed on one of these markets (markets master code).',
  }),
  isListed: define('isListed', 'listed', {
    scope: company,
    field: 'markets.code',
    description: 'true: listed on at least one market; false: unlisted; null: no condition.',
    hook: 'nullable boolean: null is accepted and means no condition',
  }),
  revenueRange: define('revenueRange', 'exact', {
    scope: company,
    field: 'revenueRange',
    item: items.enumOf(revenueRanges),
    description: 'Revenue range.',
  }),
  employeeCount: define('employeeCount', 'range', {
    scope: company,
    field: 'employeeCount',
    item: items.count,
    description: 'Headcount, inclusive bounds.',
  }),
  capitalMillionYen: define('capitalMillionYen', 'range', {
    scope: company,
    field: 'capitalMillionYen',
    item: items.millionYen,
    description: 'Capital in million yen, inclusive bounds.',
  }),
  hasCorporatePhone: define('hasCorporatePhone', 'presence', {
    scope: company,
    field: 'phoneNumber',
    description: 'true: the company has a phone number; false: it has none.',
  }),
  hasCorporateWebsite: define('hasCorporateWebsite', 'presence', {
    scope: company,
    field: 'websiteUrl',
    description: 'true: the company has a website; false: it has none.',
  }),
  hasCorporateEmail: define('hasCorporateEmail', 'presence', {
    scope: company,
    field: 'email',
    description: 'true: the company has an e-mail address; false: it has none.',
  }),
  hasFax: define('hasFax', 'presence', {
    scope: company,
    field: 'fax',
    description: 'true: the company has a fax number; false: it has none.',
  }),
  employeeDiff6mMin: define('employeeDiff6mMin', 'range', {
    scope: company,
    field: 'employeeDiff6mMin',
    description: 'Headcount increase over 6 months, inclusive bounds.',
    aliases: ['employeeDiff6m'],
    hook: 'nested alias employeeDiff6m (the name the guides use; also a sort alias)',
  }),
  employeeDiff12m: define('employeeDiff12m', 'range', {
    scope: company,
    field: 'employeeDiff12m',
    description: 'Headcount increase over 12 months, inclusive bounds.',
  }),
  employeeTransition: define('employeeTransition', 'contains', {
    scope: company,
    field: 'employeeTransition.substring',
    description: 'Headcount transition flags contain the string.',
  }),
  fundingSeries: define('fundingSeries', 'exact', {
    scope: company,
    field: 'fundingSeries',
    item: items.enumOf(fundingSeries),
    description: 'Latest funding series.',
  }),
  totalAdCost: define('totalAdCost', 'range', {
    scope: company,
    field: 'totalAdCost',
    item: items.yen,
    description: 'Total ad spend in yen, inclusive bounds.',
  }),
  paidMediaSpend: define('paidMediaSpend', 'exact', {
    scope: company,
    field: 'paidMediaSpend',
    item: items.enumOf(paidMediaSpendRanges),
    description: 'Annual paid-media spend range.',
  }),
  paidMediaUsedMediaId: define('paidMediaUsedMediaId', 'ids', {
    master: masters.media,
    scope: company,
    field: 'paidMedias.mediaId',
    description: 'Has a paid listing on one of these media (media master id).',
  }),
  workLocationCount: define('workLocationCount', 'range', {
    scope: company,
    field: 'workLocationCount',
    item: items.count,
    description:
      "Number of work locations (distinct addresses of the company's postings on site or of unknown kind), inclusive bounds.",
    flat: {},
    hook: 'nested form only (filters.workLocationCount.min/max): the flat lists of 4.2/4.3 do not name it',
  }),
  summary: define('summary', 'contains', {
    scope: company,
    field: 'summary',
    ops: ['anyContains', 'allContains', 'noneContains'],
    description: 'Business summary contains the strings (Or: any, And: all, Not: none).',
    hook: 'the summary is itself a 1-2 gram text field (no .substring sub-field) and takes And as well',
  }),
} satisfies Record<string, FilterDef>;

const c = companyAttributeFilters;

/**
 * Hiring activity (the company's `hiringActivity`, counted by the indexer from every posting it
 * has seen on the company as of the Japan day `hiringActivity.asOf`: docs/index-documents.md).
 * Company search only: postings do not carry their company's activity.
 */
function hiringActivityFilters(): FilterDef[] {
  const field = (name: string) => `hiringActivity.${name}`;
  const counts: Array<[string, string, SchemaObject]> = [
    ['hiringOpenPostings', 'Postings open now, inclusive bounds.', items.count],
    [
      'hiringNewPostings7d',
      'Postings started in the last 7 days (open or closed since), inclusive bounds.',
      items.count,
    ],
    ['hiringNewPostings30d', 'Postings started in the last 30 days, inclusive bounds.', items.count],
    ['hiringNewPostings90d', 'Postings started in the last 90 days, inclusive bounds.', items.count],
    ['hiringClosedPostings30d', 'Postings closed in the last 30 days, inclusive bounds.', items.count],
    [
      'hiringNetChange30d',
      'Postings started minus postings closed in the last 30 days (negative: more closed), inclusive bounds.',
      items.integer,
    ],
  ];
  const lower = (key: string) => `${key.charAt(6).toLowerCase()}${key.slice(7)}`;
  return [
    ...counts.map(([key, description, item]) =>
      define(key, 'range', { scope: company, field: field(lower(key)), item, description }),
    ),
    define('hiringFirstPostedOn', 'dateRange', {
      scope: company,
      field: field('firstPostedOn'),
      description: "The start of the company's first posting lies within the dates, inclusive.",
    }),
    define('hiringLastPostedOn', 'dateRange', {
      scope: company,
      field: field('lastPostedOn'),
      description: "The start of the company's latest posting lies within the dates, inclusive.",
    }),
    define('hiringStartedMediaId', 'ids', {
      master: masters.media,
      scope: company,
      field: field('mediaStarted30d'),
      description:
        'The company started on one of these media in the last 30 days: its first posting there started within them (Not: on none of them).',
    }),
    define('hiringStoppedMediaId', 'ids', {
      master: masters.media,
      scope: company,
      field: field('mediaStopped30d'),
      description:
        'The company stopped on one of these media in the last 30 days: nothing open there now, its last posting there closed within them (Not: on none of them).',
    }),
  ];
}

/**
 * The company's invoice registration (`invoice`, from the National Tax Agency's invoice register:
 * indexer/invoice/, docs/public-records.md). Company search only: postings do not carry it.
 */
function invoiceFilters(): FilterDef[] {
  return [
    define('hasInvoiceRecord', 'presence', {
      scope: company,
      field: 'invoice.registrationNumber',
      description:
        'true: the invoice register has a row of the company (registered now, before, or from a later day); false: it has none.',
    }),
    define('invoiceRegistered', 'validOn', {
      scope: company,
      field: 'invoice.registeredOn',
      endField: 'invoice.endedOn',
      description:
        'true: a registered invoice issuer today (the day in Japan): registered on or before today and not cancelled or expired on or before today; false: every other company (never registered, not yet, or no longer).',
    }),
    define('invoiceRegisteredOn', 'validOn', {
      scope: company,
      field: 'invoice.registeredOn',
      endField: 'invoice.endedOn',
      item: items.date,
      description:
        'A registered invoice issuer on this day (YYYY-MM-DD): registered on or before it and not cancelled or expired on or before it.',
      hook: 'a day, not a boolean: the status on that date; no Not form (invoiceRegistered false covers today)',
    }),
    define('invoiceRegistrationDate', 'dateRange', {
      scope: company,
      field: 'invoice.registeredOn',
      description: 'The registration took effect within the dates, inclusive.',
    }),
    define('invoiceEndedOn', 'dateRange', {
      scope: company,
      field: 'invoice.endedOn',
      description:
        'The registration was cancelled or expired (or will be: the register announces some ends ahead) within the dates, inclusive.',
    }),
    define('invoiceEndReason', 'exact', {
      scope: company,
      field: 'invoice.endReason',
      item: items.enumOf(['cancelled', 'expired']),
      description:
        'How the registration ended or will end: cancelled by the tax office (取消) or expired (失効) (Not: it did not end so, or has no end known).',
    }),
  ];
}

/**
 * gBizINFO's subsidies and government procurement, summed per company (`subsidies`,
 * `procurement`: indexer/gbizinfo/, docs/public-records.md). Company search only.
 */
function gbizinfoFilters(): FilterDef[] {
  const kinds = [
    ['subsidy', 'subsidies', 'Subsidies received', 'granted', 'granted them'],
    ['procurement', 'procurement', 'Government orders won', 'ordered', 'ordered them'],
  ] as const;
  return kinds.flatMap(([stem, field, what, done, who]) => [
    define(`has${stem === 'subsidy' ? 'Subsidies' : 'Procurement'}`, 'presence', {
      scope: company,
      field: presenceField(field),
      description: `true: gBizINFO's file has ${what.toLowerCase()} of the company; false: none (or its file is not loaded).`,
    }),
    define(`${stem}Count`, 'range', {
      scope: company,
      field: `${field}.count`,
      item: items.count,
      description: `${what}: how many, inclusive bounds (a company without a row never matches).`,
    }),
    define(`${stem}TotalYen`, 'range', {
      scope: company,
      field: `${field}.totalYen`,
      item: items.yen,
      description: `${what}: their amounts summed, in yen, inclusive bounds.`,
    }),
    define(`${stem}LatestOn`, 'dateRange', {
      scope: company,
      field: `${field}.latestOn`,
      description: `${what}: the latest day one was ${done} lies within the dates, inclusive.`,
    }),
    define(`${stem}BodyId`, 'ids', {
      master: masters.governmentBodies,
      scope: company,
      field: `${field}.bodyIds`,
      description: `${what}: one of these government bodies ${who} (government-bodies master id; Not: none of them did).`,
    }),
  ]);
}

/**
 * gBizINFO's certifications (届出・認定) and awards (表彰): the kinds a company's rows name, as
 * ids of their masters (`certifications`, `awards`: indexer/gbizinfo/). Company search only.
 */
function listedRecordFilters(): FilterDef[] {
  const kinds = [
    [
      'certification',
      'Certifications',
      'certifications',
      masters.certificationKinds,
      'certified',
      'certification-kinds',
    ],
    ['award', 'Awards', 'awards', masters.awardKinds, 'awarded', 'award-kinds'],
  ] as const;
  return kinds.flatMap(([stem, plural, field, master, done, masterName]) => [
    define(`has${plural}`, 'presence', {
      scope: company,
      field: presenceField(field),
      description: `true: gBizINFO's file has ${field} of the company; false: none (or its file is not loaded).`,
    }),
    define(`${stem}KindId`, 'ids', {
      master,
      scope: company,
      field: `${field}.kindIds`,
      description: `${plural}: the company's rows name one of these kinds (${masterName} master id; 999 a kind not listed; Not: none of them).`,
    }),
    define(`${stem}Count`, 'range', {
      scope: company,
      field: `${field}.count`,
      item: items.count,
      description: `${plural}: how many rows the company has, inclusive bounds (a company without a row never matches).`,
    }),
    define(`${stem}LatestOn`, 'dateRange', {
      scope: company,
      field: `${field}.latestOn`,
      description: `${plural}: the latest day one was ${done} lies within the dates, inclusive.`,
    }),
  ]);
}

/**
 * gBizINFO's workplace figures (職場情報: `workplace`, indexer/gbizinfo/workplace.ts), each a
 * number to one decimal, null when the company's row does not give it. Company search only.
 */
function workplaceFilters(): FilterDef[] {
  const figures = [
    ['AverageAge', 'averageAge', "the employees' average age, in years"],
    ['AverageTenureYears', 'averageTenureYears', "regular employees' average years of service"],
    ['OvertimeHours', 'overtimeHoursPerMonth', 'average overtime per month, in hours'],
    ['FemaleWorkerPercent', 'femaleWorkerPercent', 'the share of women among workers, in percent'],
    ['FemaleManagerPercent', 'femaleManagerPercent', 'the share of women among managers, in percent'],
    ['FemaleOfficerPercent', 'femaleOfficerPercent', 'the share of women among officers, in percent'],
    [
      'MaleChildcareLeavePercent',
      'maleChildcareLeavePercent',
      'men who took childcare leave per man eligible, in percent (may pass 100)',
    ],
  ] as const;
  return [
    define('hasWorkplace', 'presence', {
      scope: company,
      field: presenceField('workplace'),
      description:
        "true: gBizINFO's workplace file has a row of the company (its figures may still be null); false: none (or the file is not loaded).",
    }),
    ...figures.map(([stem, field, what]) =>
      define(`workplace${stem}`, 'range', {
        scope: company,
        field: `workplace.${field}`,
        item: items.decimal,
        description: `Workplace figures (gBizINFO): ${what}, inclusive bounds (figures are kept to one decimal; a company whose row does not give it never matches).`,
      }),
    ),
  ];
}

export const corporateFilters: readonly FilterDef[] = [
  define('corporateName', 'exact', {
    scope: company,
    field: 'name.folded',
    description:
      'Company name equals the string, width, case and compatibility forms folded (㈱ = (株)) as the contains filters fold them.',
    hook: 'compared folded as the contains filters are (the .folded sub-field: ㈱ = (株), width, case)',
  }),
  define('corporateName', 'contains', {
    scope: company,
    field: 'name.substring',
    description: 'Company name contains the string.',
  }),
  define('corporateNumber', 'exact', {
    scope: company,
    field: 'corporateNumber',
    item: items.corporateNumber,
    ops: ['any'],
    description: '13-digit corporate number.',
    hook: 'Or only: the contract names no corporateNumberNot',
  }),
  {
    ...c.prefectureId,
    nested: ['prefectureId', 'corporatePrefectureId'],
    hook: 'nested alias corporatePrefectureId (both names are accepted)',
  },
  c.cityName,
  c.streetAddress,
  c.industryCategoryId,
  c.industrySubCategoryId,
  c.businessCategoryId,
  c.businessSubCategoryId,
  c.corporateType,
  {
    ...c.marketCode,
    nested: ['marketCode', 'corporateMarketCode'],
    hook: 'nested alias corporateMarketCode (both names are accepted)',
  },
  c.isListed,
  c.revenueRange,
  c.employeeCount,
  c.capitalMillionYen,
  c.hasCorporatePhone,
  c.hasCorporateWebsite,
  c.hasCorporateEmail,
  c.hasFax,
  define('hasDispatchLicense', 'flag', {
    scope: company,
    field: 'hasDispatchLicense',
    description: 'true: the company holds a staffing-dispatch license; false: it does not (or unknown).',
    hook: 'license spelling 1 of 2: on the company; jobHasDispatchLicense is on its postings',
  }),
  define('hasRecruitmentLicense', 'flag', {
    scope: company,
    field: 'hasRecruitmentLicense',
    description: 'true: the company holds a placement license; false: it does not (or unknown).',
    hook: 'license spelling 1 of 2: on the company; jobHasRecruitmentLicense is on its postings',
  }),
  define('foundedAt', 'dateRange', {
    scope: company,
    field: 'foundedAt',
    description: 'Founding date, inclusive bounds (YYYY-MM-DD).',
  }),
  c.employeeDiff6mMin,
  c.employeeDiff12m,
  c.employeeTransition,
  c.fundingSeries,
  c.totalAdCost,
  c.paidMediaSpend,
  c.paidMediaUsedMediaId,
  c.workLocationCount,
  ...hiringActivityFilters(),
  ...invoiceFilters(),
  ...gbizinfoFilters(),
  ...listedRecordFilters(),
  ...workplaceFilters(),
  c.summary,
  define('furiganaPrefix', 'prefix', {
    scope: company,
    field: 'readingKey',
    description:
      'The reading (furigana) starts with one of the strings, compared as name keys (kana, width and spaces folded); companies without a reading never match.',
    hook: 'Or only, on the internal reading key (docs/index-documents.md, name keys)',
  }),

  // Conditions on the linked postings: positive ones must hold for ONE posting together.
  define('jobTitle', 'contains', {
    scope: posting,
    field: 'postings.title.substring',
    description: 'A posting whose title contains the string (Not: no posting does).',
  }),
  define('jobMediaId', 'ids', {
    master: masters.media,
    scope: posting,
    field: 'postings.mediaId',
    description: 'A posting on one of these media (Not: no posting on them).',
    aliases: ['mediaId'],
    hook: 'nested alias mediaId (both names are accepted)',
  }),
  define('jobEmploymentTypeId', 'ids', {
    master: masters.employmentTypes,
    scope: posting,
    field: 'postings.employmentTypeId',
    description: 'A posting with one of these employment types (Not: no posting with them).',
    aliases: ['employmentTypeId'],
    hook: 'nested alias employmentTypeId (both names are accepted)',
  }),
  define('jobSalary', 'range', {
    scope: posting,
    field: 'postings.salaryMin',
    item: items.yen,
    description: 'A posting whose minimum salary (yen) lies within the bounds.',
    hook: 'flat jobSalaryMin/jobSalaryMax are both bounds on the posting minimum salary (salaryMin)',
  }),
  define('jobCategoryId', 'ids', {
    master: masters.jobCategories,
    scope: posting,
    field: 'postings.jobCategoryId',
    description: 'A posting in one of these major job categories (Not: none in them).',
  }),
  define('jobSubCategoryId', 'ids', {
    master: masters.jobSubCategories,
    scope: posting,
    field: 'postings.jobSubCategoryId',
    description: 'A posting in one of these minor job categories (Not: none in them).',
  }),
  define('jobOpenedOn', 'dateRange', {
    scope: posting,
    field: 'postings.jobOpenedOn',
    description: 'A posting opened within the dates, inclusive.',
  }),
  define('jobDeadlineOn', 'dateRange', {
    scope: posting,
    field: 'postings.jobDeadlineOn',
    description: 'A posting whose deadline lies within the dates, inclusive.',
  }),
  define('jobCreatedAt', 'dateRange', {
    scope: posting,
    field: 'postings.jobCreatedAt',
    description: 'A posting collected within the dates, inclusive.',
  }),
  define('jobAdPlan', 'exact', {
    scope: posting,
    field: 'postings.adPlan',
    ops: ['any'],
    description: 'A posting with one of these ad plan names.',
    hook: 'Or only: the contract names no jobAdPlanNot',
  }),
  define('jobHasContactEmail', 'flag', {
    scope: posting,
    field: 'postings.hasContactEmail',
    description: 'A posting that has (true) / lacks (false) a contact e-mail.',
  }),
  define('jobHasContactPhone', 'flag', {
    scope: posting,
    field: 'postings.hasContactPhone',
    description: 'A posting that has (true) / lacks (false) a contact phone number.',
  }),
  define('jobHasDispatchLicense', 'flag', {
    scope: posting,
    field: 'postings.hasDispatchLicense',
    description: 'A posting stating (true) / not stating (false) a staffing-dispatch license.',
    hook: 'license spelling 2 of 2: on the postings',
  }),
  define('jobHasRecruitmentLicense', 'flag', {
    scope: posting,
    field: 'postings.hasRecruitmentLicense',
    description: 'A posting stating (true) / not stating (false) a placement license.',
    hook: 'license spelling 2 of 2: on the postings',
  }),
  define('jobHiringPlanMin', 'range', {
    scope: posting,
    field: 'postings.hiringPlanMin',
    item: items.count,
    ops: ['min'],
    flat: { jobHiringPlanMinAtLeast: 'min' },
    description: 'A posting planning to hire at least this many (its minimum planned hires).',
    hook: 'flat name jobHiringPlanMinAtLeast is a lower bound only; nested filters.jobHiringPlanMin.min',
  }),
  define('jobDescription', 'detailText', {
    scope: posting,
    field: 'postings.description',
    description:
      'A posting whose detail text, collected within the last month, contains the strings (Or: any, And: all, Not: no such posting).',
    collectedAtField: 'postings.descriptionCollectedAt',
    hook: 'only text with descriptionCollectedAt >= now-1M/d is seen, enforced in the query',
  }),
  define('includeClosed', 'inclusion', {
    scope: company,
    field: 'closed',
    description:
      'true: closed companies (closed in the corporate-number register: liquidated, merged away, closed by the registrar) are included too; absent or false: they are left out of the results, counts, facets and exports.',
    hook: 'an inclusion: its absence is the condition (closed companies left out), request-wide',
  }),
  define('updatedAt', 'dateRange', {
    scope: company,
    field: 'updatedAt',
    item: items.dateOrInstant,
    description:
      'When the company record (its own fields or its postings) last changed in this API (records carry it as updatedAt). A date (YYYY-MM-DD) is a whole day in Japan time; a date-time (RFC 3339 with offset) is that exact instant, for fetching what changed since the last sync.',
  }),
];
