/**
 * TypeScript shapes of the source records; the JSON Schemas in schemas/ are the published form.
 * They are the feed's contract, shared by the one who reads it (the indexer's pipeline, through
 * indexer/source-types.ts) and the one who writes it (the sample-data generator, sample-data/),
 * so they live here rather than with either.
 */
import type { MasterItem, MasterName } from './masters/lookups.js';

export interface CorporateSource {
  type: 'corporate';
  corporateNumber: string;
  name: string;
  furigana?: string | null;
  corporateType?: string | null;
  postalCode?: string | null;
  prefectureId?: number | null;
  cityName?: string | null;
  streetAddress?: string | null;
  industryCategoryId?: number | null;
  industrySubCategoryId?: number | null;
  businessCategoryId?: number | null;
  businessSubCategoryId?: number | null;
  phoneNumber?: string | null;
  fax?: string | null;
  websiteUrl?: string | null;
  email?: string | null;
  employeeCount?: number | null;
  capitalMillionYen?: number | null;
  revenueRange?: string | null;
  marketCodes?: string[];
  fiscalMonth?: string | null;
  ceoName?: string | null;
  foundedAt?: string | null;
  hasDispatchLicense?: boolean | null;
  hasRecruitmentLicense?: boolean | null;
  emp1MAgo?: number | null;
  emp7MAgo?: number | null;
  emp13MAgo?: number | null;
  employeeDiff6mMin?: number | null;
  employeeDiff12m?: number | null;
  employeeTransition?: string | null;
  fundingSeries?: string | null;
  totalAdCost?: number | null;
  paidMediaSpend?: string | null;
  paidMediaIds?: number[];
  summary?: string | null;
  sourceUpdatedAt?: string | null;
}

export interface WorkLocationSource {
  kind: 'onsite' | 'remote' | 'client_site' | 'one_off' | 'unknown';
  prefectureId?: number | null;
  cityName?: string | null;
  address?: string | null;
}

export interface JobSource {
  type: 'job';
  id: string;
  shortId?: string | null;
  corporateNumber: string;
  mediaId?: number | null;
  title: string;
  url?: string | null;
  jobPostingUrl?: string | null;
  jobCreatedAt?: string | null;
  jobOpenedOn?: string | null;
  jobDeadlineOn?: string | null;
  salaryMin?: number | null;
  salaryMax?: number | null;
  salaryUnit?: string | null;
  hiringPlanMin?: number | null;
  hiringPlanMax?: number | null;
  employmentTypeId?: number | null;
  jobCategoryId?: number | null;
  jobSubCategoryId?: number | null;
  adPlan?: string | null;
  contactName?: string | null;
  contactEmail?: string | null;
  contactPhoneNumber?: string | null;
  hasDispatchLicense?: boolean | null;
  hasRecruitmentLicense?: boolean | null;
  workLocation?: WorkLocationSource | null;
  description?: string | null;
  descriptionCollectedAt?: string | null;
  sourceUpdatedAt?: string | null;
}

export interface MasterSource {
  type: 'master';
  master: MasterName;
  version?: string;
  items: MasterItem[];
}

export interface DeleteCorporateSource {
  type: 'delete_corporate';
  corporateNumber: string;
  sourceUpdatedAt?: string | null;
}

export interface DeleteJobSource {
  type: 'delete_job';
  id: string;
  sourceUpdatedAt?: string | null;
}

export type SourceRecord =
  | CorporateSource
  | JobSource
  | MasterSource
  | DeleteCorporateSource
  | DeleteJobSource;
export type SourceType = SourceRecord['type'];
export const sourceTypes: SourceType[] = ['corporate', 'job', 'master', 'delete_corporate', 'delete_job'];
