/**
 * The one transform from source records to index documents, shared by the CLI and the BullMQ
 * worker. Documents carry every mapped field (null when absent) and nothing else: the indices
 * are `dynamic: strict`, so a stray field fails the write instead of hiding in `_source`.
 *
 * Example: {type:'job', id:'j1', corporateNumber:'7000012050002', mediaId:3, ...}
 *   -> jobs/j1 {id:'j1', mediaName:'doda', corporateName:'国税庁', corporate:{...}, ...}
 *   -> job-details/j1 {id:'j1', corporateNumber, description, descriptionCollectedAt}
 */
import { mappingFields } from '../src/opensearch/mappings.js';
import { searchableSince } from '../src/search/detail-window.js';
import { descriptionOpening, openingField } from '../src/search/opening.js';
import { activityFields, japanDay, noActivity } from './hiring-activity.js';
import {
  corporateTypeLabels,
  fundingSeriesLabels,
  paidMediaSpendLabels,
  revenueRangeLabels,
} from './labels.js';
import type { Market, Masters } from './masters.js';
import { evidenceKeyFields, nameKeyFields } from './name-keys.js';
import type { CorporateSource, JobSource } from './source-types.js';

/**
 * A record the indexer cannot turn into a document; the message names the field, every
 * problem of the record joined by `; `:
 *   'mediaId: 999 is not in the media master; jobCategoryId: 77 is not in the job-categories master'
 */
export class RecordError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** The problems found so far by the transform running (they are synchronous: one at a time). */
let problems: string[] | undefined;

function refuse(problem: string): void {
  if (problems) problems.push(problem);
  else throw new RecordError([problem]);
}

/** Runs a transform to its end, then refuses the record with every problem it had, if any. */
function withEveryProblem<T>(build: () => T): T {
  const outer = problems;
  problems = [];
  try {
    const built = build();
    if (problems.length > 0) throw new RecordError(problems);
    return built;
  } finally {
    problems = outer;
  }
}

export type Doc = Record<string, unknown>;

/** The company fields copied onto each posting: whatever mappings/jobs.json lists under `corporate`. */
export const corporateEmbedFields = mappingFields('jobs', 'corporate');

function lookup<K>(
  map: Map<K, string>,
  key: K | null | undefined,
  field: string,
  master: string,
): string | null {
  if (key === null || key === undefined) return null;
  const name = map.get(key);
  if (name === undefined) refuse(`${field}: ${String(key)} is not in the ${master} master`);
  return name ?? null;
}

/** A minor class must sit under the major class given beside it. */
function checkParent(
  masters: Masters,
  master: keyof Masters['parentOf'],
  major: number | null | undefined,
  minor: number | null | undefined,
  fields: [string, string],
): void {
  if (major === null || major === undefined || minor === null || minor === undefined) return;
  if (masters.parentOf[master].get(minor) !== major)
    refuse(`${fields[1]}: ${minor} is not a subcategory of ${fields[0]} ${major} in the ${master} master`);
}

function label(labels: Record<string, string>, value: string | null | undefined): string | null {
  return value ? (labels[value] ?? null) : null;
}

/** The company fields of a corporates document (no aggregates, postings or workLocationCount yet). */
export function toCorporateFields(source: CorporateSource, masters: Masters): Doc {
  return withEveryProblem(() => corporateFields(source, masters));
}

function corporateFields(source: CorporateSource, masters: Masters): Doc {
  const markets: Market[] = (source.marketCodes ?? []).flatMap((code) => {
    const market = masters.market.get(code);
    if (!market) refuse(`marketCodes: ${code} is not in the markets master`);
    return market ? [market] : [];
  });
  const paidMedias = (source.paidMediaIds ?? []).map((mediaId) => ({
    mediaId,
    mediaName: lookup(masters.media, mediaId, 'paidMediaIds', 'media'),
  }));
  checkParent(masters, 'industries', source.industryCategoryId, source.industrySubCategoryId, [
    'industryCategoryId',
    'industrySubCategoryId',
  ]);
  checkParent(masters, 'business-types', source.businessCategoryId, source.businessSubCategoryId, [
    'businessCategoryId',
    'businessSubCategoryId',
  ]);
  // the parts in the document's field order (the masters' problems are found in that order too)
  return {
    ...companyIdentity(source, masters),
    ...companyClasses(source, masters),
    ...companyFigures(source, markets),
    ...companyFunding(source, paidMedias),
    // internal: what match and suggest compare on (./name-keys.ts)
    ...nameKeyFields(source.name, source.furigana),
    ...evidenceKeyFields(source.phoneNumber, source.websiteUrl),
  };
}

/** Who and where the company is. */
function companyIdentity(source: CorporateSource, masters: Masters): Doc {
  return {
    corporateNumber: source.corporateNumber,
    name: source.name,
    furigana: source.furigana ?? null,
    corporateType: source.corporateType ?? null,
    corporateTypeLabel: label(corporateTypeLabels, source.corporateType),
    postalCode: source.postalCode ?? null,
    prefectureId: source.prefectureId ?? null,
    prefectureName: lookup(masters.prefecture, source.prefectureId, 'prefectureId', 'prefectures'),
    cityName: source.cityName ?? null,
    streetAddress: source.streetAddress ?? null,
  };
}

/** The industry and business classes, with their master names. */
function companyClasses(source: CorporateSource, masters: Masters): Doc {
  return {
    industryCategoryId: source.industryCategoryId ?? null,
    industryCategoryName: lookup(
      masters.industry,
      source.industryCategoryId,
      'industryCategoryId',
      'industries',
    ),
    industrySubCategoryId: source.industrySubCategoryId ?? null,
    industrySubCategoryName: lookup(
      masters.industrySub,
      source.industrySubCategoryId,
      'industrySubCategoryId',
      'industries',
    ),
    businessCategoryId: source.businessCategoryId ?? null,
    businessCategoryName: lookup(
      masters.business,
      source.businessCategoryId,
      'businessCategoryId',
      'business-types',
    ),
    businessSubCategoryId: source.businessSubCategoryId ?? null,
    businessSubCategoryName: lookup(
      masters.businessSub,
      source.businessSubCategoryId,
      'businessSubCategoryId',
      'business-types',
    ),
  };
}

/** Contacts, size, markets, licenses and the headcount history. */
function companyFigures(source: CorporateSource, markets: Market[]): Doc {
  return {
    phoneNumber: source.phoneNumber ?? null,
    fax: source.fax ?? null,
    websiteUrl: source.websiteUrl ?? null,
    email: source.email ?? null,
    employeeCount: source.employeeCount ?? null,
    capitalMillionYen: source.capitalMillionYen ?? null,
    revenueRange: source.revenueRange ?? null,
    revenueRangeLabel: label(revenueRangeLabels, source.revenueRange),
    markets,
    fiscalMonth: source.fiscalMonth ?? null,
    ceoName: source.ceoName ?? null,
    foundedAt: source.foundedAt ?? null,
    hasDispatchLicense: source.hasDispatchLicense ?? null,
    hasRecruitmentLicense: source.hasRecruitmentLicense ?? null,
    emp1MAgo: source.emp1MAgo ?? null,
    emp7MAgo: source.emp7MAgo ?? null,
    emp13MAgo: source.emp13MAgo ?? null,
    employeeDiff6mMin: source.employeeDiff6mMin ?? null,
    employeeDiff12m: source.employeeDiff12m ?? null,
    employeeTransition: source.employeeTransition ?? null,
  };
}

/** Funding, advertising spend and the summary. */
function companyFunding(source: CorporateSource, paidMedias: Doc[]): Doc {
  return {
    fundingSeries: source.fundingSeries ?? null,
    fundingSeriesLabel: label(fundingSeriesLabels, source.fundingSeries),
    totalAdCost: source.totalAdCost ?? null,
    paidMediaSpend: source.paidMediaSpend ?? null,
    paidMediaSpendLabel: label(paidMediaSpendLabels, source.paidMediaSpend),
    paidMedias,
    summary: source.summary ?? null,
  };
}

/**
 * A new corporates document: company fields, plus empty aggregates and no hiring activity
 * until the company rebuild (indexer/rebuild.ts) counts them from the postings.
 */
export function toCorporateDocument(source: CorporateSource, masters: Masters, now: Date): Doc {
  return {
    ...toCorporateFields(source, masters),
    workLocationCount: 0,
    aggregates: {
      jobCreatedAtMax: null,
      jobOpenedOnMax: null,
      jobDeadlineOnMax: null,
      jobSalaryMinMax: null,
      jobHiringPlanMinMax: null,
      postingCount: 0,
    },
    ...activityFields(noActivity(japanDay(now))),
    postings: [],
    updatedAt: now.toISOString(),
  };
}

/** The `corporate` object of a jobs document, from a corporates document's `_source`. */
export function toCorporateEmbed(corporate: Doc): Doc {
  const embed: Doc = {};
  for (const field of corporateEmbedFields) {
    const value = corporate[field];
    embed[field] = value === undefined ? (field === 'workLocationCount' ? 0 : null) : value;
  }
  return embed;
}

export function toJobDocument(source: JobSource, corporate: Doc, masters: Masters, now: Date): Doc {
  return withEveryProblem(() => jobDocument(source, corporate, masters, now));
}

function jobDocument(source: JobSource, corporate: Doc, masters: Masters, now: Date): Doc {
  const location = source.workLocation;
  checkParent(masters, 'job-categories', source.jobCategoryId, source.jobSubCategoryId, [
    'jobCategoryId',
    'jobSubCategoryId',
  ]);
  // a text collected before the searchable window is kept only in job-details
  const recent = isRecent(source.descriptionCollectedAt, now);
  return {
    id: source.id,
    shortId: source.shortId ?? null,
    corporateNumber: source.corporateNumber,
    corporateName: corporate.name,
    mediaId: source.mediaId ?? null,
    mediaName: lookup(masters.media, source.mediaId, 'mediaId', 'media'),
    title: source.title,
    url: source.url ?? null,
    jobPostingUrl: source.jobPostingUrl ?? null,
    jobCreatedAt: source.jobCreatedAt ?? null,
    jobOpenedOn: source.jobOpenedOn ?? null,
    jobDeadlineOn: source.jobDeadlineOn ?? null,
    salaryMin: source.salaryMin ?? null,
    salaryMax: source.salaryMax ?? null,
    salaryUnit: source.salaryUnit ?? null,
    hiringPlanMin: source.hiringPlanMin ?? null,
    hiringPlanMax: source.hiringPlanMax ?? null,
    employmentTypeId: source.employmentTypeId ?? null,
    employmentTypeName: lookup(
      masters.employmentType,
      source.employmentTypeId,
      'employmentTypeId',
      'employment-types',
    ),
    jobCategoryId: source.jobCategoryId ?? null,
    jobCategoryName: lookup(masters.jobCategory, source.jobCategoryId, 'jobCategoryId', 'job-categories'),
    jobSubCategoryId: source.jobSubCategoryId ?? null,
    jobSubCategoryName: lookup(
      masters.jobSubCategory,
      source.jobSubCategoryId,
      'jobSubCategoryId',
      'job-categories',
    ),
    adPlan: source.adPlan ?? null,
    contactName: source.contactName ?? null,
    contactEmail: source.contactEmail ?? null,
    contactPhoneNumber: source.contactPhoneNumber ?? null,
    // a posting without its own license flags inherits the company's
    hasDispatchLicense: source.hasDispatchLicense ?? (corporate.hasDispatchLicense as boolean | null) ?? null,
    hasRecruitmentLicense:
      source.hasRecruitmentLicense ?? (corporate.hasRecruitmentLicense as boolean | null) ?? null,
    workLocation: location
      ? {
          kind: location.kind,
          prefectureId: location.prefectureId ?? null,
          cityName: location.cityName ?? null,
          address: location.address ?? null,
        }
      : null,
    description: recent ? (source.description ?? null) : null,
    descriptionCollectedAt: source.descriptionCollectedAt ?? null,
    // the snippets' opening excerpt, read by searches without a detail-text condition: '' for
    // no text, null where the highlighter must answer (src/search/opening.ts)
    [openingField]: descriptionOpening(recent ? source.description : null) ?? null,
    corporate: toCorporateEmbed(corporate),
    updatedAt: now.toISOString(),
  };
}

/** The permanent copy of the detail text (GET /jobs/{jobId}/detail). */
export function toJobDetailDocument(source: JobSource, now: Date): Doc {
  return {
    id: source.id,
    corporateNumber: source.corporateNumber,
    description: source.description ?? null,
    descriptionCollectedAt: source.descriptionCollectedAt ?? null,
    updatedAt: now.toISOString(),
  };
}

/** Start of the searchable window (src/search/detail-window.ts; the sample-data generator dates texts by it too). */
export { searchableSince };

/** Whether a detail text is still in the searchable window (collected within the last month). */
export function isRecent(collectedAt: string | null | undefined, now: Date): boolean {
  if (!collectedAt) return false;
  return new Date(collectedAt).getTime() >= searchableSince(now).getTime();
}
