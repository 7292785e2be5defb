/**
 * Company records of the sample data set. Each company also returns the few facts its
 * postings need (`CompanyStub`), so postings are made without keeping company records around.
 */
import { fundingSeries, type revenueRanges } from '../../src/catalogue/enums.js';
import { corporateCheckDigit } from '../corporate-number.js';
import type { MasterItem, Masters } from '../masters.js';
import type { CorporateSource } from '../source-types.js';
import type { Random } from './random.js';
import {
  buildings,
  citiesByPrefecture,
  corporateTypeWords,
  fiscalMonths,
  givenNames,
  nameStems,
  nameSuffixes,
  prefectureCapitals,
  prefectureWeights,
  staffingSuffixes,
  summaryParts,
  surnames,
  towns,
} from './vocabulary.js';

export interface Office {
  prefectureId: number;
  cityName: string;
  town: string;
  numbers: [number, number, number];
  building: string | null;
}

export interface CompanyStub {
  corporateNumber: string;
  name: string;
  domain: string;
  staffing: boolean;
  hasDispatchLicense: boolean | null;
  hasRecruitmentLicense: boolean | null;
  /** the places its postings are based at, first = head office */
  offices: Office[];
  /** relative share of all postings */
  weight: number;
}

const corporateTypes: ReadonlyArray<readonly [string, number]> = [
  ['kabushiki_gaisha', 70],
  ['godo_gaisha', 10],
  ['yugen_gaisha', 9],
  ['gomei_gaisha', 1],
  ['goshi_gaisha', 1.5],
  ['foreign_company', 1.5],
  ['national_org', 1],
  ['local_gov', 1],
  ['other', 5],
];

/** Annual ad spend ranges with their yen bounds. */
const spendRanges: ReadonlyArray<readonly [string, number, number]> = [
  ['none', 0, 0],
  ['from_0_to_1m', 1, 999_999],
  ['from_1m_to_3m', 1_000_000, 2_999_999],
  ['from_3m_to_5m', 3_000_000, 4_999_999],
  ['from_5m_to_10m', 5_000_000, 9_999_999],
  ['from_10m_to_30m', 10_000_000, 29_999_999],
  ['from_30m_to_50m', 30_000_000, 49_999_999],
  ['from_50m_to_100m', 50_000_000, 99_999_999],
  ['over_100m', 100_000_000, 600_000_000],
];

export function cityOf(random: Random, prefectureId: number): string {
  const cities = citiesByPrefecture[prefectureId];
  return cities ? random.pick(cities) : (prefectureCapitals[prefectureId] ?? '中央区');
}

function makeOffice(random: Random, prefectureId: number): Office {
  return {
    prefectureId,
    cityName: cityOf(random, prefectureId),
    town: random.pick(towns),
    numbers: [random.int(1, 9), random.int(1, 30), random.int(1, 25)],
    building: random.chance(0.5)
      ? `${random.pick(['', '新'])}${random.pick(buildings)}${random.int(2, 12)}F`
      : null,
  };
}

/** 1丁目2番3号 / 1-2-3 / １－２－３: one address in the ways real postings write it. */
export function writeStreet(random: Random, office: Office): string {
  const [a, b, c] = office.numbers;
  const style = random.int(0, 4);
  const wide = (text: string) =>
    text.replace(/[0-9-]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
  const numbers = [
    `${a}丁目${b}番${c}号`,
    `${a}-${b}-${c}`,
    wide(`${a}-${b}-${c}`),
    `${a}丁目${b}-${c}`,
    `${a}丁目${b}番地${c}`,
  ][style];
  const building = office.building ? `${random.chance(0.5) ? ' ' : '　'}${office.building}` : '';
  return `${office.town}${numbers}${building}`;
}

function corporateNumber(random: Random, index: number): string {
  // 4-digit registry code + a 7-digit number that is a permutation of the index (7919 is
  // coprime with 10^7), so numbers look scattered yet never repeat below 10 million companies
  const serial = (index * 7919 + 1_234_567) % 10_000_000;
  const base = `${random.int(1000, 9999)}0${String(serial).padStart(7, '0')}`;
  return `${corporateCheckDigit(base)}${base}`;
}

function pickSub(random: Random, items: MasterItem[]): [number, number] {
  const major = random.pick(items);
  const sub = random.pick(major.subCategories ?? [{ id: major.id as number, name: major.name }]);
  return [major.id as number, sub.id];
}

function revenueFor(employees: number): (typeof revenueRanges)[number] {
  const perHead = employees * 20; // about 20 million yen of revenue per employee
  if (perHead < 100) return 'under_100m';
  if (perHead < 300) return 'from_100m_to_300m';
  if (perHead < 1000) return 'from_300m_to_1b';
  if (perHead < 5000) return 'from_1b_to_5b';
  if (perHead < 30_000) return 'from_5b_to_30b';
  if (perHead < 100_000) return 'from_30b_to_100b';
  return 'over_100b';
}

function transitionFlags(random: Random, diff6: number, diff12: number): string | null {
  const flags: string[] = [];
  if (diff6 > 0 && random.chance(0.6)) flags.push('6ヶ月連続増加');
  if (diff12 > 0 && diff6 > 0 && random.chance(0.4)) flags.push('12ヶ月連続増加');
  if (diff6 < 0 && random.chance(0.6)) flags.push('6ヶ月連続減少');
  if (diff12 < 0 && random.chance(0.3)) flags.push('12ヶ月連続減少');
  if (flags.length === 0 && random.chance(0.3)) flags.push('横ばい');
  return flags.length > 0 ? flags.join(',') : null;
}

function summary(random: Random): string {
  const p = summaryParts;
  return `${random.pick(p.openings)}${random.pick(p.fields)}${random.pick(p.verbs)}${random.pick(p.extras)}${random.pick(p.endings)}`;
}

export function makeCompany(
  random: Random,
  index: number,
  masters: Masters,
  now: Date,
): { record: CorporateSource; stub: CompanyStub } {
  const staffing = random.chance(0.004) || index === 0;
  const corporateType = staffing ? 'kabushiki_gaisha' : random.weighted(corporateTypes);
  const [typeWord, typeReading] = corporateTypeWords[corporateType] ?? ['', ''];
  const stem = random.pick(nameStems);
  const suffix = random.pick(staffing ? staffingSuffixes : nameSuffixes);
  const before = random.chance(0.6);
  const name = before ? `${typeWord}${stem[0]}${suffix[0]}` : `${stem[0]}${suffix[0]}${typeWord}`;
  const furigana = before ? `${typeReading}${stem[1]}${suffix[1]}` : `${stem[1]}${suffix[1]}${typeReading}`;
  const domain = `${stem[2]}-${suffix[2]}${index}.co.jp`;
  const prefectureId = random.weighted(prefectureWeights);
  const head = makeOffice(random, prefectureId);
  const employees = Math.max(1, Math.round(random.logNormal(staffing ? 2000 : 40, 1.6)));
  const branchCount = staffing ? random.int(20, 80) : employees > 300 ? random.int(1, 8) : random.int(0, 2);
  const offices = [head];
  for (let i = 0; i < branchCount; i++)
    offices.push(makeOffice(random, random.chance(0.5) ? prefectureId : random.weighted(prefectureWeights)));

  const known = random.chance(0.85);
  const emp13 = known ? Math.max(0, Math.round(employees * (0.7 + random.float() * 0.5))) : null;
  const emp7 =
    known && emp13 !== null ? Math.max(0, Math.round(emp13 * (0.85 + random.float() * 0.3))) : null;
  const emp1 = known ? employees : null;
  const diff6 = emp1 !== null && emp7 !== null ? emp1 - emp7 : null;
  const diff12 = emp1 !== null && emp13 !== null ? emp1 - emp13 : null;

  const listed = random.chance(employees > 1000 ? 0.5 : employees > 100 ? 0.06 : 0.005);
  const listedOn = listed
    ? [
        random.weighted<string>([
          ['tse_prime', 5],
          ['tse_standard', 4],
          ['tse_growth', 3],
          ['nse_main', 1],
          ['fse_main', 0.5],
          ['sse_main', 0.3],
          ['tse_pro_market', 0.3],
          ['nse_premier', 0.5],
          ['nse_next', 0.3],
          ['fse_q_board', 0.3],
          ['sse_ambitious', 0.3],
        ]),
      ]
    : [];
  // a few are listed on two exchanges
  if (listed && random.chance(0.1) && !listedOn.includes('nse_premier')) listedOn.push('nse_premier');

  const [spend, low, high] = random.chance(0.3) ? (['none', 0, 0] as const) : random.pick(spendRanges);
  const hasSpend = random.chance(0.75);
  const activeMedia = masters.lists.media
    .filter((item) => item.active !== false)
    .map((item) => item.id as number);
  const [industryCategoryId, industrySubCategoryId] = pickSub(random, masters.lists.industries);
  const [businessCategoryId, businessSubCategoryId] = pickSub(random, masters.lists['business-types']);
  const young = random.chance(0.08);
  const founded = young
    ? new Date(now.getTime() - random.int(200, 3650) * 86_400_000)
    : new Date(Date.UTC(random.int(1890, 2020), random.int(0, 11), random.int(1, 28)));
  const hasDispatchLicense = staffing ? true : random.chance(0.9) ? random.chance(0.05) : null;
  const hasRecruitmentLicense = staffing ? true : random.chance(0.9) ? random.chance(0.05) : null;
  const area = String(random.int(10, 99));

  const record: CorporateSource = {
    type: 'corporate',
    corporateNumber: corporateNumber(random, index),
    name,
    furigana: random.chance(0.9) ? furigana : null,
    corporateType,
    postalCode: random.chance(0.92)
      ? `${random.int(100, 999)}-${String(random.int(0, 9999)).padStart(4, '0')}`
      : null,
    prefectureId,
    cityName: head.cityName,
    streetAddress: writeStreet(random, head),
    industryCategoryId,
    industrySubCategoryId,
    businessCategoryId,
    businessSubCategoryId,
    phoneNumber: random.chance(0.9) ? `0${area}-${random.int(100, 999)}-${random.int(1000, 9999)}` : null,
    fax: random.chance(0.5) ? `0${area}-${random.int(100, 999)}-${random.int(1000, 9999)}` : null,
    websiteUrl: random.chance(0.75) ? `https://www.${domain}/` : null,
    email: random.chance(0.4) ? `info@${domain}` : null,
    employeeCount: random.chance(0.95) ? employees : null,
    capitalMillionYen: random.chance(0.9)
      ? Math.round(random.logNormal(Math.max(3, employees / 4), 1) * 10) / 10
      : null,
    revenueRange: random.chance(0.8) ? revenueFor(employees) : null,
    marketCodes: listedOn,
    fiscalMonth: random.chance(0.9)
      ? random.weighted(
          fiscalMonths.map((month) => [month, month === '3月' ? 12 : month === '12月' ? 5 : 1] as const),
        )
      : null,
    ceoName: random.chance(0.95) ? `${random.pick(surnames)} ${random.pick(givenNames)}` : null,
    foundedAt: random.chance(0.9) ? `${founded.toISOString().slice(0, 10)}T00:00:00+09:00` : null,
    hasDispatchLicense,
    hasRecruitmentLicense,
    emp1MAgo: emp1,
    emp7MAgo: emp7,
    emp13MAgo: emp13,
    employeeDiff6mMin: diff6,
    employeeDiff12m: diff12,
    employeeTransition: diff6 !== null && diff12 !== null ? transitionFlags(random, diff6, diff12) : null,
    fundingSeries: young && random.chance(0.6) ? random.pick(fundingSeries) : null,
    totalAdCost: hasSpend ? random.int(low, high) : null,
    paidMediaSpend: hasSpend ? spend : null,
    paidMediaIds:
      hasSpend && spend !== 'none' ? random.sample(activeMedia, random.int(1, 4)).sort((a, b) => a - b) : [],
    summary: random.chance(0.9) ? summary(random) : null,
  };
  const weight = staffing ? random.int(150, 400) : random.chance(0.3) ? 0 : random.logNormal(1, 1.1);
  return {
    record,
    stub: {
      corporateNumber: record.corporateNumber,
      name,
      domain,
      staffing,
      hasDispatchLicense,
      hasRecruitmentLicense,
      offices,
      weight,
    },
  };
}
