/** Posting records of the sample data set, made company by company. */
import type { Masters } from '../masters.js';
import type { JobSource, WorkLocationSource } from '../source-types.js';
import { type CompanyStub, cityOf, writeStreet } from './companies.js';
import type { Random } from './random.js';
import { adPlans, descriptionParts, givenNames, surnames, titleHooks } from './vocabulary.js';

const day = 86_400_000;

/** Employment type ids (data/masters/employment-types.json) with their share of postings. */
const employmentWeights: ReadonlyArray<readonly [number, number]> = [
  [1, 45],
  [2, 10],
  [3, 12],
  [4, 20],
  [5, 4],
  [6, 3],
  [7, 1],
  [8, 2],
  [9, 3],
];

interface SalaryRule {
  unit: 'yearly' | 'monthly' | 'daily' | 'hourly';
  min: number;
  max: number;
  step: number;
}

/** Salary floor ranges by employment type, in yen per unit. */
const salaryRules: Record<number, SalaryRule> = {
  1: { unit: 'yearly', min: 2_800_000, max: 12_000_000, step: 100_000 },
  2: { unit: 'monthly', min: 190_000, max: 550_000, step: 10_000 },
  3: { unit: 'hourly', min: 1_150, max: 2_600, step: 50 },
  4: { unit: 'hourly', min: 1_000, max: 1_800, step: 10 },
  5: { unit: 'monthly', min: 250_000, max: 900_000, step: 10_000 },
  6: { unit: 'hourly', min: 1_300, max: 2_300, step: 50 },
  7: { unit: 'monthly', min: 180_000, max: 400_000, step: 10_000 },
  8: { unit: 'daily', min: 8_000, max: 15_000, step: 500 },
};

const unitWords = { yearly: '年収', monthly: '月給', daily: '日給', hourly: '時給' };

function isoDate(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

function salary(random: Random, employmentTypeId: number) {
  const rule = salaryRules[employmentTypeId];
  if (!rule || random.chance(0.05)) return { salaryMin: null, salaryMax: null, salaryUnit: null };
  const steps = Math.floor((rule.max - rule.min) / rule.step);
  // skewed towards the low end, as real offers are
  const min = rule.min + Math.floor(steps * random.float() ** 2) * rule.step;
  const max = random.chance(0.8) ? min + random.int(1, 20) * rule.step : null;
  return { salaryMin: min, salaryMax: max, salaryUnit: rule.unit };
}

function workLocation(random: Random, company: CompanyStub): WorkLocationSource | null {
  const kind = random.weighted<WorkLocationSource['kind'] | null>(
    company.staffing
      ? [
          ['client_site', 45],
          ['onsite', 40],
          ['one_off', 5],
          ['remote', 2],
          ['unknown', 4],
          [null, 4],
        ]
      : [
          ['onsite', 72],
          ['remote', 6],
          ['client_site', 6],
          ['one_off', 3],
          ['unknown', 5],
          [null, 8],
        ],
  );
  if (kind === null) return null;
  const office = random.pick(company.offices);
  if (kind === 'remote') return { kind, prefectureId: null, cityName: null, address: null };
  if (kind === 'client_site' || kind === 'one_off') {
    return {
      kind,
      prefectureId: office.prefectureId,
      cityName: cityOf(random, office.prefectureId),
      address: null,
    };
  }
  const incomplete = random.chance(0.06);
  return {
    kind,
    prefectureId: office.prefectureId,
    cityName: incomplete && random.chance(0.5) ? null : office.cityName,
    address: incomplete ? null : writeStreet(random, office),
  };
}

function description(
  random: Random,
  title: string,
  pay: string,
  place: string,
  company: CompanyStub,
): string {
  const p = descriptionParts;
  const pickSome = (items: readonly string[], from: number, to: number) =>
    random.sample(items, random.int(from, to)).join('');
  const sections = [
    `【募集職種】${title}`,
    `【仕事内容】${pickSome(p.duties, 2, 4)}${pickSome(p.team, 1, 3)}`,
    `【応募資格】${pickSome(p.requirements, 1, 3)}`,
    `【歓迎スキル】${pickSome(p.welcome, 1, 3)}`,
    `【給与】${pay}。経験・能力を考慮のうえ決定します。昇給年1回、賞与年2回（業績による）。`,
    `【勤務地】${place}。転勤は原則ありません。`,
    `【勤務時間】${pickSome(p.hours, 1, 2)}`,
    `【休日休暇】${pickSome(p.holidays, 2, 4)}`,
    `【福利厚生】${pickSome(p.benefits, 2, 5)}`,
    `【選考プロセス】${pickSome(p.process, 1, 3)}`,
    `【会社情報】${company.name}は、お客様と社員の双方に選ばれる会社を目指しています。${pickSome(p.team, 1, 2)}`,
  ];
  return sections.join('\n\n');
}

export function makeJob(
  random: Random,
  sequence: number,
  company: CompanyStub,
  masters: Masters,
  now: Date,
): JobSource {
  const id = `J${String(sequence).padStart(9, '0')}`;
  const mediaIds = masters.lists.media.map(
    (item) => [item.id as number, item.active === false ? 0.2 : 3] as const,
  );
  const mediaId = random.weighted(mediaIds);
  const employmentTypeId = company.staffing && random.chance(0.6) ? 3 : random.weighted(employmentWeights);
  const category = random.pick(masters.lists['job-categories']);
  const sub = random.pick(category.subCategories ?? []);
  const employmentName = masters.employmentType.get(employmentTypeId) ?? '';
  const hooks = random.sample(titleHooks, random.int(0, 3));
  const title = `【${employmentName}】${sub?.name ?? category.name}${hooks.length > 0 ? `／${hooks.join('／')}` : ''}`;
  const createdAt = now.getTime() - random.int(0, 180 * day) - random.int(0, day);
  const openedOn = random.chance(0.95) ? createdAt - random.int(0, 5) * day : null;
  const deadlineOn = openedOn !== null && random.chance(0.6) ? openedOn + random.int(14, 120) * day : null;
  const pay = salary(random, employmentTypeId);
  const hiringPlanMin = random.chance(0.7) ? Math.max(1, Math.round(random.logNormal(2, 0.9))) : null;
  const location = workLocation(random, company);
  const place = location?.address
    ? `${location.cityName ?? ''}${location.address}`
    : location?.kind === 'remote'
      ? 'フルリモート'
      : '当社指定の就業先';
  const payText =
    pay.salaryMin !== null
      ? `${unitWords[pay.salaryUnit]}${pay.salaryMin.toLocaleString('en-US')}円〜`
      : '応相談';
  const hasText = random.chance(0.95);
  // collected over the last ~3 months, so about a third stays in the searchable month
  const collectedAt = hasText ? new Date(now.getTime() - random.int(0, 92 * day)).toISOString() : null;
  const inherit = random.chance(0.7);
  return {
    type: 'job',
    id,
    shortId: sequence.toString(36).padStart(7, '0'),
    corporateNumber: company.corporateNumber,
    mediaId,
    title,
    url: `https://jobs.example.jp/media/${mediaId}/${id}`,
    jobPostingUrl: random.chance(0.5) ? `https://www.${company.domain}/recruit/${id}` : null,
    jobCreatedAt: new Date(createdAt).toISOString(),
    jobOpenedOn: openedOn === null ? null : isoDate(openedOn),
    jobDeadlineOn: deadlineOn === null ? null : isoDate(deadlineOn),
    ...pay,
    hiringPlanMin,
    hiringPlanMax: hiringPlanMin !== null && random.chance(0.6) ? hiringPlanMin + random.int(0, 10) : null,
    employmentTypeId,
    jobCategoryId: category.id as number,
    jobSubCategoryId: sub?.id ?? null,
    adPlan: random.chance(0.8) ? random.pick(adPlans) : null,
    contactName: random.chance(0.7) ? `${random.pick(surnames)} ${random.pick(givenNames)}` : null,
    contactEmail: random.chance(0.5) ? `recruit@${company.domain}` : null,
    contactPhoneNumber: random.chance(0.6)
      ? `0${random.int(10, 99)}-${random.int(100, 999)}-${random.int(1000, 9999)}`
      : null,
    hasDispatchLicense: inherit ? null : (company.hasDispatchLicense ?? random.chance(0.1)),
    hasRecruitmentLicense: inherit ? null : (company.hasRecruitmentLicense ?? random.chance(0.1)),
    workLocation: location,
    description: hasText ? description(random, title, payText, place, company) : null,
    descriptionCollectedAt: collectedAt,
  };
}
