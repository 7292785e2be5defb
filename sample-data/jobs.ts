/**
 * Posting records of the sample data set, made company by company. A posting hires for what
 * its company's line of business hires for, is carried by the media that company buys or by
 * the free channels, and is based at one of the company's offices.
 */
import type { Masters } from '../src/masters/lookups.js';
import { searchableSince } from '../src/search/detail-window.js';
import type { JobSource, WorkLocationSource } from '../src/source-types.js';
import { type CompanyStub, type Office, writeStreet } from './companies.js';
import {
  circledNumbers,
  hardCaseSchedule,
  romanNumerals,
  scheduled,
  toFullWidth,
  toHalfWidthKana,
  variant,
} from './hard-cases.js';
import { pickCity } from './places.js';
import { freeMedia } from './profiles.js';
import type { Random } from './random.js';
import { adPlans, descriptionParts, givenNames, surnames, titleHooks } from './vocabulary.js';

const day = 86_400_000;
const minute = 60_000;

/** Every employment type keeps a small share whatever the line of business. */
const baseEmployment: ReadonlyArray<readonly [number, number]> = [
  [1, 3],
  [2, 2],
  [3, 2],
  [4, 3],
  [5, 1],
  [6, 1],
  [7, 0.5],
  [8, 1],
  [9, 1],
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

const workLocationKinds: ReadonlyArray<WorkLocationSource['kind'] | null> = [
  'onsite',
  'remote',
  'client_site',
  'one_off',
  'unknown',
  null,
];

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

function workLocation(
  random: Random,
  sequence: number,
  company: CompanyStub,
  office: Office,
): WorkLocationSource | null {
  const schedule = hardCaseSchedule.everyWorkLocationKind;
  const forced = sequence % schedule.every < workLocationKinds.length ? sequence % schedule.every : -1;
  const kind =
    forced >= 0
      ? (workLocationKinds[forced] ?? null)
      : random.weighted<WorkLocationSource['kind'] | null>(
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
  if (kind === 'remote') return { kind, prefectureId: null, cityName: null, address: null };
  const prefectureId = office.city.prefectureId;
  if (kind === 'client_site' || kind === 'one_off')
    return { kind, prefectureId, cityName: pickCity(random, prefectureId).name, address: null };
  const incomplete = random.chance(0.06);
  return {
    kind,
    prefectureId,
    cityName: incomplete && random.chance(0.5) ? null : office.city.name,
    address: incomplete ? null : writeStreet(random, office),
  };
}

function title(
  random: Random,
  sequence: number,
  employmentName: string,
  job: string,
  company: CompanyStub,
  city: string | null,
): string {
  const hooks = random.sample(titleHooks, random.int(0, 3));
  const where = city && random.chance(0.25) ? `（${city}）` : '';
  const plain = `【${employmentName}】${job}${where}${hooks.length > 0 ? `／${hooks.join('／')}` : ''}`;
  const schedule = hardCaseSchedule.compatibleTitle;
  if (!scheduled(schedule, sequence)) return plain;
  switch (variant(schedule, sequence, 7)) {
    case 0:
      return `【${employmentName}】${job}${random.pick(circledNumbers)}${where}`;
    case 1:
      return `【${employmentName}】${job}（${random.pick(romanNumerals)}期生募集）`;
    case 2:
      return `${plain}／時給1,200円～`;
    case 3:
      return `${plain}／${toFullWidth(`年間休日${random.int(105, 125)}日`)}`;
    case 4:
      return `【${toHalfWidthKana(employmentName)}】${job}${where}`;
    case 5:
      return `【${company.name.replace(/株式会社/, '㈱')}】${job}`;
    default:
      return `${plain}／℡応募歓迎`;
  }
}

function description(
  random: Random,
  sequence: number,
  opening: {
    title: string;
    pay: string;
    place: string;
    job: string;
    categoryId: number;
    employmentTypeId: number;
    phone: string;
  },
  company: CompanyStub,
): string {
  const p = descriptionParts;
  const pickSome = (items: readonly string[], from: number, to: number) =>
    random.sample(items, random.int(from, to)).join('');
  const duties = p.duties[opening.categoryId] ?? p.duties[1] ?? [];
  const sections = [
    `【募集職種】${opening.title}`,
    `【仕事内容】${opening.job}として、${pickSome(duties, 1, 2)}${pickSome(p.team, 1, 3)}`,
    `【応募資格】${pickSome([...p.requirements, ...(p.requirementsFor[opening.categoryId] ?? [])], 1, 3)}`,
    `【歓迎スキル】${pickSome([...p.welcome, ...(p.welcomeFor[opening.categoryId] ?? [])], 1, 2)}`,
    `【給与】${opening.pay}。経験・能力を考慮のうえ決定します。昇給年1回、賞与年2回（業績による）。`,
    `【勤務地】${opening.place}。転勤は原則ありません。`,
    `【雇用期間・試用期間】${random.pick(p.terms[opening.employmentTypeId] ?? ['契約内容は面談時にご説明します。'])}`,
    `【勤務時間】${random.pick(p.hours)}`,
    `【休日休暇】${random.pick(p.holidays.slice(0, 2))}${pickSome(p.holidays.slice(2), 1, 2)}`,
    `【福利厚生】${pickSome(p.benefits, 2, 5)}`,
    `【受動喫煙対策】${random.pick(p.smoking)}`,
    `【選考プロセス】${pickSome(p.process, 1, 3)}`,
    `【会社情報】${company.name}は、お客様と社員の双方に選ばれる会社を目指しています。${pickSome(p.team, 1, 2)}`,
  ];
  if (scheduled(hardCaseSchedule.compatibleText, sequence)) {
    // 時給1,850円〜 as legacy systems write it: 時給１，８５０円～
    const wide = (text: string) => toFullWidth(text).replace(/〜/g, '～');
    const [a, b, c] = circledNumbers;
    sections.push(
      `【応募方法】${a}Webから応募 ${b}℡ ${opening.phone}（受付９：００～１８：００） ${c}履歴書を郵送。` +
        `${company.name.replace(/株式会社/, '㈱')}採用担当（ｽﾀｯﾌ一同）がお待ちしています。${wide(opening.pay)}、第Ⅱ期の研修あり。`,
    );
  }
  return sections.join('\n\n');
}

const mixes = new Map<
  string,
  { media: ReadonlyArray<readonly [number, number]>; employment: ReadonlyArray<readonly [number, number]> }
>();

function mixOf(profile: CompanyStub['profile']) {
  let mix = mixes.get(profile.key);
  if (!mix) {
    mix = { media: [...profile.media, ...freeMedia], employment: [...baseEmployment, ...profile.employment] };
    mixes.set(profile.key, mix);
  }
  return mix;
}

/** What a posting hires for and where from: medium, employment type, category, office (drawn in this order). */
function drawRole(random: Random, company: CompanyStub, masters: Masters) {
  const profile = company.profile;
  const mix = mixOf(profile);
  const mediaId =
    company.paidMedia.length > 0 && random.chance(0.55)
      ? random.pick(company.paidMedia)
      : random.weighted(mix.media);
  const employmentTypeId = random.weighted(mix.employment);
  const category = random.chance(0.92)
    ? (masters.lists['job-categories'].find((item) => item.id === random.weighted(profile.jobCategories)) ??
      random.pick(masters.lists['job-categories']))
    : random.pick(masters.lists['job-categories']);
  const sub = random.pick(category.subCategories ?? []);
  const employmentName = masters.employmentType.get(employmentTypeId) ?? '';
  const office = random.pick(company.offices);
  return { mediaId, employmentTypeId, category, sub, employmentName, office };
}

/** Where the posting's text says the work is. */
function placeWords(location: WorkLocationSource | null): string {
  if (location?.address) return `${location.cityName ?? ''}${location.address}`;
  if (location?.kind === 'remote') return 'フルリモート';
  return location?.cityName ? `${location.cityName}内の就業先` : '当社指定の就業先';
}

/** The posting's dates, from `now`: created, its text collected (95% have one), opened, deadline. */
function postingDates(random: Random, sequence: number, now: Date) {
  let createdAt = now.getTime() - random.int(0, 180 * day) - random.int(0, day);
  const hasText = random.chance(0.95);
  // collected over the last ~3 months (a posting is never younger than its text), so about a
  // third stays in the searchable month; 4% sit within 10 minutes of its start, on either side
  let collectedAt: number | null = null;
  if (hasText) {
    const since = searchableSince(now).getTime();
    if (scheduled(hardCaseSchedule.textJustInside, sequence))
      collectedAt = since + random.int(0, 10 * minute);
    else if (scheduled(hardCaseSchedule.textJustOutside, sequence))
      collectedAt = since - random.int(1000, 10 * minute);
    else collectedAt = now.getTime() - random.int(0, 92 * day);
    createdAt = Math.min(createdAt, collectedAt - random.int(1, 48) * 3600_000);
  }
  const openedOn = random.chance(0.95) ? createdAt - random.int(0, 5) * day : null;
  const deadlineOn = openedOn !== null && random.chance(0.6) ? openedOn + random.int(14, 120) * day : null;
  return { createdAt, hasText, collectedAt, openedOn, deadlineOn };
}

export function makeJob(
  random: Random,
  sequence: number,
  company: CompanyStub,
  masters: Masters,
  now: Date,
): JobSource {
  const id = `J${String(sequence).padStart(9, '0')}`;
  const { mediaId, employmentTypeId, category, sub, employmentName, office } = drawRole(
    random,
    company,
    masters,
  );
  const location = workLocation(random, sequence, company, office);
  const jobTitle = title(
    random,
    sequence,
    employmentName,
    sub?.name ?? category.name,
    company,
    location?.kind === 'remote' ? null : (location?.cityName ?? null),
  );

  const pay = salary(random, employmentTypeId);
  const hiringPlanMin = random.chance(0.7) ? Math.max(1, Math.round(random.logNormal(2, 0.9))) : null;
  const payText =
    pay.salaryMin !== null
      ? `${unitWords[pay.salaryUnit]}${pay.salaryMin.toLocaleString('en-US')}円〜`
      : '応相談';
  const phone = random.chance(0.1)
    ? `0120-${random.int(100, 999)}-${String(random.int(0, 999)).padStart(3, '0')}`
    : office.phone;
  const { createdAt, hasText, collectedAt, openedOn, deadlineOn } = postingDates(random, sequence, now);
  const inherit = random.chance(0.7);
  return {
    type: 'job',
    id,
    shortId: sequence.toString(36).padStart(7, '0'),
    corporateNumber: company.corporateNumber,
    mediaId,
    title: jobTitle,
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
    contactPhoneNumber: random.chance(0.6) ? phone : null,
    hasDispatchLicense: inherit ? null : (company.hasDispatchLicense ?? random.chance(0.1)),
    hasRecruitmentLicense: inherit ? null : (company.hasRecruitmentLicense ?? random.chance(0.1)),
    workLocation: location,
    description: hasText
      ? description(
          random,
          sequence,
          {
            title: jobTitle,
            job: sub?.name ?? category.name,
            pay: payText,
            place: placeWords(location),
            categoryId: category.id as number,
            employmentTypeId,
            phone,
          },
          company,
        )
      : null,
    descriptionCollectedAt: collectedAt === null ? null : new Date(collectedAt).toISOString(),
  };
}
