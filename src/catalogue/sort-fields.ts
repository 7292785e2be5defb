/**
 * Sortable fields (docs/api.md, "Sorting and paging"): request name -> index field. Company aggregate sorts use the
 * maximum over the company's postings, precomputed in `aggregates.*Max`. Every sort puts
 * documents without the value last in both orders, and ends on a unique key so pages are stable.
 */
export interface SortCatalogue {
  fields: Readonly<Record<string, string>>;
  /** Alias request name -> the request name it stands for. */
  aliases: Readonly<Record<string, string>>;
  default: { field: string; order: 'asc' | 'desc' };
  /** Unique keyword field, the last sort key of every search. */
  tieBreaker: string;
}

export const corporateSort: SortCatalogue = {
  fields: {
    name: 'name',
    foundedAt: 'foundedAt',
    capitalMillionYen: 'capitalMillionYen',
    employeeCount: 'employeeCount',
    totalAdCost: 'totalAdCost',
    employeeDiff6mMin: 'employeeDiff6mMin',
    employeeDiff12m: 'employeeDiff12m',
    phoneNumber: 'phoneNumber',
    fax: 'fax',
    email: 'email',
    websiteUrl: 'websiteUrl',
    jobCreatedAt: 'aggregates.jobCreatedAtMax',
    jobOpenedOn: 'aggregates.jobOpenedOnMax',
    jobDeadlineOn: 'aggregates.jobDeadlineOnMax',
    jobSalaryMin: 'aggregates.jobSalaryMinMax',
    jobHiringPlanMin: 'aggregates.jobHiringPlanMinMax',
    workLocationCount: 'workLocationCount',
    hiringOpenPostings: 'hiringActivity.openPostings',
    hiringNewPostings7d: 'hiringActivity.newPostings7d',
    hiringNewPostings30d: 'hiringActivity.newPostings30d',
    hiringNewPostings90d: 'hiringActivity.newPostings90d',
    hiringClosedPostings30d: 'hiringActivity.closedPostings30d',
    hiringNetChange30d: 'hiringActivity.netChange30d',
    hiringFirstPostedOn: 'hiringActivity.firstPostedOn',
    hiringLastPostedOn: 'hiringActivity.lastPostedOn',
    invoiceRegistrationDate: 'invoice.registeredOn',
    invoiceEndedOn: 'invoice.endedOn',
    subsidyTotalYen: 'subsidies.totalYen',
    subsidyLatestOn: 'subsidies.latestOn',
    procurementTotalYen: 'procurement.totalYen',
    procurementLatestOn: 'procurement.latestOn',
    certificationCount: 'certifications.count',
    certificationLatestOn: 'certifications.latestOn',
    awardCount: 'awards.count',
    awardLatestOn: 'awards.latestOn',
    workplaceAverageAge: 'workplace.averageAge',
    workplaceAverageTenureYears: 'workplace.averageTenureYears',
    workplaceOvertimeHours: 'workplace.overtimeHoursPerMonth',
    workplaceFemaleWorkerPercent: 'workplace.femaleWorkerPercent',
    workplaceFemaleManagerPercent: 'workplace.femaleManagerPercent',
    workplaceFemaleOfficerPercent: 'workplace.femaleOfficerPercent',
    workplaceMaleChildcareLeavePercent: 'workplace.maleChildcareLeavePercent',
    updatedAt: 'updatedAt',
  },
  // the guides also sort by employeeDiff6m (= employeeDiff6mMin)
  aliases: { employeeDiff6m: 'employeeDiff6mMin' },
  default: { field: 'name', order: 'asc' },
  tieBreaker: 'corporateNumber',
};

export const jobSort: SortCatalogue = {
  fields: {
    jobCreatedAt: 'jobCreatedAt',
    jobOpenedOn: 'jobOpenedOn',
    jobDeadlineOn: 'jobDeadlineOn',
    salaryMin: 'salaryMin',
    salaryMax: 'salaryMax',
    hiringPlanMin: 'hiringPlanMin',
    contactEmail: 'contactEmail',
    contactPhoneNumber: 'contactPhoneNumber',
    corporateFoundedAt: 'corporate.foundedAt',
    corporateCapitalMillionYen: 'corporate.capitalMillionYen',
    corporateEmployeeCount: 'corporate.employeeCount',
    corporateTotalAdCost: 'corporate.totalAdCost',
    corporateEmployeeDiff6mMin: 'corporate.employeeDiff6mMin',
    corporateEmployeeDiff12m: 'corporate.employeeDiff12m',
    corporatePhoneNumber: 'corporate.phoneNumber',
    corporateFax: 'corporate.fax',
    corporateEmail: 'corporate.email',
    corporateWebsiteUrl: 'corporate.websiteUrl',
    updatedAt: 'updatedAt',
  },
  aliases: {},
  default: { field: 'jobCreatedAt', order: 'desc' },
  tieBreaker: 'id',
};

/** Every name the request may put in `sort.field`. */
export function sortFieldNames(sort: SortCatalogue): string[] {
  return [...Object.keys(sort.fields), ...Object.keys(sort.aliases)];
}
