/**
 * Company records of the sample data set. Each company also returns the few facts its
 * postings need (`CompanyStub`), so postings are made without keeping company records around.
 *
 * What makes them believable: the legal form fixes the years a company can have been founded
 * in (有限会社 only 1940 to April 2006, 合同会社 from May 2006, 一般社団法人 from December
 * 2008); capital and head count follow the form and the listing (long-tailed, listed companies
 * far larger); the address, postal code and telephone number belong to one city (places.ts);
 * the line of business (profiles.ts) decides the industry codes, the name, the media bought and
 * later what the postings hire for.
 */
import { fundingSeries, type revenueRanges } from '../src/catalogue/enums.js';
import type { Masters } from '../src/masters/lookups.js';
import type { CorporateSource } from '../src/source-types.js';
import { corporateCheckDigit } from '../src/text/corporate-number.js';
import {
  circledNumbers,
  hardCaseSchedule,
  romanNumerals,
  type Schedule,
  scheduled,
  toFullWidth,
  toHalfWidthKana,
  variant,
  withFormulaStart,
} from './hard-cases.js';
import {
  type City,
  cityNamed,
  faxBeside,
  phoneNumber,
  pickCity,
  pickPlace,
  postalCode,
  prefectureWeights,
  type Town,
} from './places.js';
import { type Profile, profiles, publicProfile, staffingProfile } from './profiles.js';
import type { Random } from './random.js';
import {
  buildingWords,
  fiscalMonths,
  foreignStems,
  givenNames,
  kanaShapeStems,
  latinStems,
  municipalityReadings,
  nameStems,
  nationalBodies,
  nonProfitFields,
  oldKanjiStems,
  repeatMarkStems,
  romanNumeralReadings,
  summaryParts,
  surnames,
} from './vocabulary.js';

export interface Office {
  city: City;
  town: Town;
  /** 丁目 (0 when the town has none), 番(地), 号 (null: written as 番地 only) */
  numbers: [number, number, number | null];
  building: string | null;
  phone: string;
  postalCode: string;
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
  profile: Profile;
  /** media it pays for (its postings appear there most) */
  paidMedia: number[];
}

const day = 86_400_000;

interface LegalForm {
  word: string;
  reading: string;
  corporateType: string;
  /** founding-date eras [from, to (null: now), weight]: the form did not exist outside them */
  eras: ReadonlyArray<readonly [string, string | null, number]>;
  /** share of names with the form in front (前株) rather than behind (後株) */
  inFront: number;
}

/** When each form could be founded (Commercial Code 1893/1899; 有限会社法 1940-2006; 会社法 2006; 一般社団・財団法人法 2008). */
const legalForms = {
  kk: {
    word: '株式会社',
    reading: 'カブシキガイシャ',
    corporateType: 'kabushiki_gaisha',
    eras: [
      ['1893-07-01', '1945-12-31', 4],
      ['1946-01-01', '1990-12-31', 32],
      ['1991-01-01', '2006-04-30', 24],
      ['2006-05-01', null, 40],
    ],
    inFront: 0.5,
  },
  kkListed: {
    word: '株式会社',
    reading: 'カブシキガイシャ',
    corporateType: 'kabushiki_gaisha',
    eras: [
      ['1893-07-01', '1945-12-31', 20],
      ['1946-01-01', '1990-12-31', 50],
      ['1991-01-01', '2018-12-31', 30],
    ],
    inFront: 0.3,
  },
  yk: {
    word: '有限会社',
    reading: 'ユウゲンガイシャ',
    corporateType: 'yugen_gaisha',
    eras: [
      ['1940-01-01', '1990-12-31', 45],
      ['1991-01-01', '2006-04-30', 55],
    ],
    inFront: 0.5,
  },
  gk: {
    word: '合同会社',
    reading: 'ゴウドウガイシャ',
    corporateType: 'godo_gaisha',
    eras: [
      ['2006-05-01', '2014-12-31', 25],
      ['2015-01-01', null, 75],
    ],
    inFront: 0.4,
  },
  gomei: {
    word: '合名会社',
    reading: 'ゴウメイガイシャ',
    corporateType: 'gomei_gaisha',
    eras: [
      ['1893-07-01', '1945-12-31', 45],
      ['1946-01-01', '1990-12-31', 45],
      ['1991-01-01', null, 10],
    ],
    inFront: 0.3,
  },
  goshi: {
    word: '合資会社',
    reading: 'ゴウシガイシャ',
    corporateType: 'goshi_gaisha',
    eras: [
      ['1893-07-01', '1945-12-31', 40],
      ['1946-01-01', '1990-12-31', 45],
      ['1991-01-01', null, 15],
    ],
    inFront: 0.3,
  },
  ippanShadan: {
    word: '一般社団法人',
    reading: 'イッパンシャダンホウジン',
    corporateType: 'other',
    eras: [['2008-12-01', null, 1]],
    inFront: 1,
  },
  ippanZaidan: {
    word: '一般財団法人',
    reading: 'イッパンザイダンホウジン',
    corporateType: 'other',
    eras: [['2008-12-01', null, 1]],
    inFront: 1,
  },
  npo: {
    word: '特定非営利活動法人',
    reading: 'トクテイヒエイリカツドウホウジン',
    corporateType: 'other',
    eras: [['1998-12-01', null, 1]],
    inFront: 1,
  },
  iryo: {
    word: '医療法人社団',
    reading: 'イリョウホウジンシャダン',
    corporateType: 'other',
    eras: [['1950-08-01', null, 1]],
    inFront: 1,
  },
  shafuku: {
    word: '社会福祉法人',
    reading: 'シャカイフクシホウジン',
    corporateType: 'other',
    eras: [['1952-01-01', null, 1]],
    inFront: 1,
  },
  gakko: {
    word: '学校法人',
    reading: 'ガッコウホウジン',
    corporateType: 'other',
    eras: [['1950-03-15', null, 1]],
    inFront: 1,
  },
  dokuho: {
    word: '独立行政法人',
    reading: 'ドクリツギョウセイホウジン',
    corporateType: 'other',
    eras: [
      ['2001-04-01', '2001-04-01', 5],
      ['2003-10-01', '2004-04-01', 4],
      ['2004-04-02', null, 1],
    ],
    inFront: 1,
  },
} as const satisfies Record<string, LegalForm>;

type FormKey = keyof typeof legalForms;

/** corporateType as the corporate-number register counts it, with its share of companies. */
const corporateTypes: ReadonlyArray<readonly [string, number]> = [
  ['kabushiki_gaisha', 70],
  ['godo_gaisha', 10],
  ['yugen_gaisha', 9],
  ['gomei_gaisha', 1.2],
  ['goshi_gaisha', 1.3],
  ['foreign_company', 1.5],
  ['national_org', 1],
  ['local_gov', 1],
  ['other', 5.5],
];

/** Annual ad spend ranges with their yen bounds, smallest first. */
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

/** Revenue per employee in million yen, by line of business (a trading house sells far more per head than a care home). */
const revenuePerHead: Record<string, number> = {
  software: 15,
  manufacturing: 30,
  construction: 30,
  care: 6,
  food_retail: 10,
  logistics: 15,
  trading: 80,
  real_estate: 50,
  professional: 15,
  education: 7,
  finance: 40,
  staffing: 9,
  public: 12,
};

/** Industry (JSIC) and business codes of public bodies and associations, by type or form. */
const publicCodes: Record<string, { industries: readonly number[]; businessTypes: readonly number[] }> = {
  national_org: { industries: [97], businessTypes: [801] },
  local_gov: { industries: [98], businessTypes: [802] },
  dokuho: { industries: [71], businessTypes: [803] },
  ippanShadan: { industries: [93], businessTypes: [804, 805] },
  ippanZaidan: { industries: [93], businessTypes: [803, 804] },
};

/** Start-ups that raise rounds are mostly software and services. */
const fundedShare: Record<string, number> = { software: 0.7, professional: 0.6, finance: 0.4, care: 0.2 };

function normal(random: Random): number {
  return Math.log(random.logNormal(1, 1));
}

function dateIn(random: Random, eras: LegalForm['eras'], now: Date): Date {
  const [from, to] = random.weighted(eras.map((era) => [era, era[2]] as const));
  const start = Date.parse(`${from}T00:00:00Z`);
  const latest = now.getTime() - 60 * day;
  const end = Math.min(to === null ? latest : Date.parse(`${to}T00:00:00Z`), latest);
  return new Date(start + Math.floor((random.float() * (Math.max(end, start) - start + day)) / day) * day);
}

function makeOffice(random: Random, city: City, large = false): Office {
  const town = random.pick(city.towns);
  const [stem] = random.pick(nameStems);
  const numbers: Office['numbers'] =
    town.chome > 0
      ? [random.int(1, town.chome), random.int(1, 28), random.chance(0.85) ? random.int(1, 25) : null]
      : [0, random.int(1, town.name.length > 8 ? 800 : 60), random.chance(0.7) ? random.int(1, 30) : null];
  let building: string | null = null;
  if (random.chance(0.55)) {
    const name = random.weighted<string>([
      [`${stem}ビル`, 3],
      [`${town.name.length <= 4 ? town.name : stem}${random.pick(buildingWords)}`, 3],
      [`第${random.int(2, 5)}${stem}ビル`, 1],
      [`${random.pick(surnames)}ビル`, 2],
      [`${stem}ビル${random.pick(romanNumerals)}`, 0.4],
    ]);
    const floor = random.int(1, 12);
    building = random.weighted<string>([
      [`${name}${floor}F`, 3],
      [`${name} ${floor}階`, 3],
      [`${name}${floor}0${random.int(1, 5)}`, 1],
      [name, 2],
    ]);
  }
  return {
    city,
    town,
    numbers,
    building,
    phone: phoneNumber(random, city),
    postalCode: postalCode(random, city, large),
  };
}

const kanjiDigits = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/**
 * One address in the ways real records write it: 丸の内二丁目7番2号 / 丸の内2-7-2 / 丸の内２－７－２ /
 * 丸の内2丁目7-2 / 桜丘町26番1号 (a town with no 丁目) / 上本能寺前町488番地.
 */
export function writeStreet(random: Random, office: Office): string {
  const [chome, ban, go] = office.numbers;
  const town = office.town.name;
  let numbers: string;
  if (chome === 0) {
    numbers =
      go === null ? `${ban}番地` : random.pick([`${ban}番${go}号`, `${ban}-${go}`, `${ban}番地${go}`]);
  } else {
    const tail = go === null ? `${ban}` : `${ban}-${go}`;
    const style = random.int(0, 5);
    numbers = [
      go === null ? `${chome}丁目${ban}番地` : `${chome}丁目${ban}番${go}号`,
      `${chome}-${tail}`,
      toFullWidth(`${chome}-${tail}`),
      `${chome}丁目${tail}`,
      chome < 10
        ? `${kanjiDigits[chome]}丁目${go === null ? `${ban}番地` : `${ban}番${go}号`}`
        : `${chome}丁目${tail}`,
      `${chome}-${tail}`.replace(/-/g, '−'),
    ][style] as string;
  }
  const building = office.building ? `${random.pick([' ', '　', ''])}${office.building}` : '';
  return `${town}${numbers}${building}`;
}

function corporateNumber(random: Random, index: number): string {
  // 4-digit registry code + a 7-digit number that is a permutation of the index (7919 is
  // coprime with 10^7), so numbers look scattered yet never repeat below 10 million companies
  const serial = (index * 7919 + 1_234_567) % 10_000_000;
  const base = `${random.int(1000, 9999)}0${String(serial).padStart(7, '0')}`;
  return `${corporateCheckDigit(base)}${base}`;
}

function pickSub(
  random: Random,
  masters: Masters,
  subs: readonly number[],
  master: 'industries' | 'business-types',
) {
  const sub = random.pick(subs);
  return [masters.parentOf[master].get(sub) as number, sub] as const;
}

function revenueFor(millionYen: number): (typeof revenueRanges)[number] {
  if (millionYen < 100) return 'under_100m';
  if (millionYen < 300) return 'from_100m_to_300m';
  if (millionYen < 1000) return 'from_300m_to_1b';
  if (millionYen < 5000) return 'from_1b_to_5b';
  if (millionYen < 30_000) return 'from_5b_to_30b';
  if (millionYen < 100_000) return 'from_30b_to_100b';
  return 'over_100b';
}

function transitionFlags(random: Random, diff6: number, diff12: number): string | null {
  const flags: string[] = [];
  if (diff6 > 0 && random.chance(0.6)) flags.push('6ヶ月連続増加');
  if (diff12 > 0 && diff6 > 0 && random.chance(0.4)) flags.push('12ヶ月連続増加');
  if (diff6 < 0 && random.chance(0.6)) flags.push('6ヶ月連続減少');
  if (diff12 < 0 && random.chance(0.3)) flags.push('12ヶ月連続減少');
  if (flags.length === 0 && diff6 === 0 && random.chance(0.5)) flags.push('横ばい');
  return flags.length > 0 ? flags.join(',') : null;
}

/** Head counts 13, 7 and 1 month ago: a yearly trend plus a little noise; small firms often unchanged. */
function headcountHistory(random: Random, current: number, large: boolean, ageDays: number) {
  const steady = current < 30 && random.chance(0.5);
  const growth = steady ? 0 : (large ? 0.02 : 0.04) + normal(random) * (large ? 0.05 : 0.15);
  const jitter = () => (steady ? 0 : normal(random) * (large ? 0.01 : 0.04));
  const at = (monthsBefore: number) =>
    Math.max(0, Math.round(current / (1 + growth) ** ((monthsBefore - 1) / 12) / (1 + jitter())));
  return {
    emp1: current,
    emp7: ageDays > 7 * 31 ? at(7) : null,
    emp13: ageDays > 13 * 31 ? at(13) : null,
  };
}

/** Capital in million yen by form; listed companies and big subsidiaries far larger. */
function capitalFor(
  random: Random,
  form: FormKey,
  employees: number,
  listed: boolean,
  founded: Date,
): number | null {
  const round = (value: number) => (value >= 100 ? Math.round(value) : Math.round(value * 10) / 10);
  switch (form) {
    case 'kkListed':
      // about 2.5 million yen per employee, never below 100 million
      return round(Math.max(100, random.logNormal(employees * 2.5, 1)));
    case 'kk': {
      if (listed || employees > 300) return round(Math.max(10, random.logNormal(200, 1.1)));
      const amount = random.weighted<number>([
        [1, 4],
        [3, 6],
        [5, 8],
        [10, 30],
        [20, 8],
        [30, 8],
        [50, 6],
        [99, 3],
        [100, 3],
        [random.logNormal(150, 0.8), 4],
      ]);
      // 1991-2006: a new 株式会社 needed 10 million yen
      const minimum = founded >= new Date('1991-04-01') && founded < new Date('2006-05-01') ? 10 : 0;
      return round(Math.max(minimum, amount));
    }
    case 'yk':
      return random.weighted<number>([
        [3, 55],
        [5, 15],
        [10, 18],
        [20, 5],
        [30, 4],
        [6, 3],
      ]);
    case 'gk':
      return employees > 200
        ? round(random.logNormal(500, 1))
        : random.weighted<number>([
            [0.1, 3],
            [0.5, 5],
            [1, 25],
            [3, 15],
            [5, 10],
            [10, 10],
          ]);
    case 'gomei':
    case 'goshi':
      return random.weighted<number>([
        [0.5, 3],
        [1, 5],
        [3, 4],
        [5, 3],
        [10, 2],
      ]);
    case 'dokuho':
      return round(random.logNormal(50_000, 1.2));
    default:
      return null;
  }
}

/** Distinct ids drawn by weight. */
function weightedSample(
  random: Random,
  entries: ReadonlyArray<readonly [number, number]>,
  count: number,
): number[] {
  const pool = [...entries];
  const out: number[] = [];
  while (out.length < count && pool.length > 0) {
    const id = random.weighted(pool);
    out.push(id);
    pool.splice(
      pool.findIndex(([item]) => item === id),
      1,
    );
  }
  return out.sort((a, b) => a - b);
}

export interface Naming {
  form: FormKey | null;
  /** founding date and seat fixed by the name (a national body) */
  founded?: string;
  seat?: City;
  /** founding date drawn with the name, for companies */
  foundedDate?: Date;
  name: string;
  /** the reading of the whole name in katakana, the legal form's reading where the form stands */
  furigana: string;
  /** a kind of name that had no reading before every company got one (see makeCompany) */
  newReading?: true;
  domain: string;
}

/** A name a later company of the same type can take (hardCaseSchedule.nameInOtherPrefecture). */
export interface NameSource {
  corporateType: string;
  prefectureId: number;
  foundedYear: number;
  name: string;
  furigana: string;
  domain: string;
}

/**
 * Whether a company founded in `year` may carry the name `source` was given for its own year:
 * katakana names only from 1975, 昭和 only in Shōwa-era firms (as nameCompany draws them).
 */
export function nameFitsYear(source: NameSource, year: number): boolean {
  if (year < 1975 && source.foundedYear >= 1975) return false;
  return !source.name.includes('昭和') || (year >= 1926 && year < 1990);
}

/** The stems the name hard cases put in place of the drawn one (the draw is still made). */
function scheduledStem(index: number, year: number): readonly [string, string, string] | null {
  const { oldKanjiName, kanaShapeName, repeatMarkName } = hardCaseSchedule;
  const nth = <T>(list: readonly T[], schedule: Schedule) => list[variant(schedule, index, list.length)] as T;
  if (scheduled(oldKanjiName, index)) return nth(oldKanjiStems, oldKanjiName);
  if (scheduled(repeatMarkName, index)) return nth(repeatMarkStems, repeatMarkName);
  // katakana only for firms founded from 1975, as every other katakana name
  if (scheduled(kanaShapeName, index) && year >= 1975) return nth(kanaShapeStems, kanaShapeName);
  return null;
}

/** A municipality is named after its city (the ward dropped): 横浜市, not 横浜市中区. */
function nameMunicipality(head: City, id: string): Naming {
  const city = head.name.replace(/^(.+?[市])(.+区)$/, '$1');
  const reading = municipalityReadings[city];
  if (!reading) throw new Error(`no reading for the municipality ${city} (vocabulary.ts)`);
  return {
    form: null,
    name: city,
    furigana: reading,
    newReading: true,
    domain: `city-${id}.example.lg.jp`,
  };
}

/** A national body: its real name, establishment date and seat. */
function nameNationalBody(random: Random, id: string): Naming {
  const [name, reading, romaji, founded, prefectureId, cityName] = random.pick(nationalBodies);
  return {
    form: null,
    name,
    furigana: reading,
    domain: `${romaji}-${id}.example.go.jp`,
    founded,
    seat: cityNamed(prefectureId, cityName),
  };
}

function nameForeignCompany(random: Random, id: string): Naming {
  const [stem, romaji] = random.pick(foreignStems);
  const [tail, tailRomaji] = random.pick([
    ['インク', 'inc'],
    ['リミテッド', 'ltd'],
    ['コーポレーション', 'corp'],
    ['エルエルシー', 'llc'],
    ['ゲーエムベーハー', 'gmbh'],
  ] as const);
  return {
    form: null,
    name: `${stem}・${tail}`,
    // the reading leaves the middle dots out (ペンタゴン・システムズ・インク: ペンタゴンシステムズインク)
    furigana: `${stem}${tail}`.replace(/・/g, ''),
    domain: `${romaji}-${tailRomaji}${id}.example.com`,
  };
}

/** The legal form of an association, foundation, NPO or school, by line of business. */
function nonProfitForm(random: Random, profile: Profile): FormKey {
  return random.weighted<FormKey>(
    profile.key === 'care'
      ? [
          ['shafuku', 5],
          ['iryo', 4],
          ['npo', 2],
          ['ippanShadan', 1],
        ]
      : profile.key === 'education'
        ? [
            ['gakko', 6],
            ['ippanShadan', 1],
            ['npo', 1],
          ]
        : [
            ['ippanShadan', 6],
            ['ippanZaidan', 2],
            ['npo', 2],
            ['dokuho', 1],
          ],
  );
}

/** The body word after the name: 会 for a welfare or medical corporation, 学園 for a school, 協会 ... */
function nonProfitBody(random: Random, form: FormKey): readonly [string, string] {
  if (form === 'shafuku' || form === 'iryo')
    return random.pick([
      ['会', 'カイ'],
      ['福祉会', 'フクシカイ'],
      ['厚生会', 'コウセイカイ'],
    ] as const);
  if (form === 'gakko')
    return random.pick([
      ['学園', 'ガクエン'],
      ['学院', 'ガクイン'],
    ] as const);
  return random.pick([
    ['協会', 'キョウカイ'],
    ['振興会', 'シンコウカイ'],
    ['推進機構', 'スイシンキコウ'],
    ['連合会', 'レンゴウカイ'],
  ] as const);
}

/** corporateType 'other': an association, foundation, NPO, welfare, medical or school corporation. */
function nameNonProfit(random: Random, profile: Profile, id: string): Naming {
  const form = nonProfitForm(random, profile);
  const { word, reading } = legalForms[form];
  const [region, regionReading, regionRomaji] = random.pick([
    ['日本', 'ニホン', 'japan'],
    ['全国', 'ゼンコク', 'zenkoku'],
    ['関東', 'カントウ', 'kanto'],
    ['関西', 'カンサイ', 'kansai'],
    ['九州', 'キュウシュウ', 'kyushu'],
    ['東北', 'トウホク', 'tohoku'],
  ] as const);
  const [field, fieldReading, fieldRomaji] = random.pick(nonProfitFields);
  const [body, bodyReading] = nonProfitBody(random, form);
  const [stem, stemReading, stemRomaji] = random.pick(nameStems);
  const core =
    form === 'shafuku' || form === 'iryo' || form === 'gakko'
      ? [`${stem}${body}`, `${stemReading}${bodyReading}`, stemRomaji]
      : [
          `${region}${field}${body}`,
          `${regionReading}${fieldReading}${bodyReading}`,
          `${regionRomaji}-${fieldRomaji}`,
        ];
  const tld = form === 'gakko' ? 'ac.jp' : form === 'dokuho' ? 'go.jp' : 'or.jp';
  return {
    form,
    name: `${word}${core[0]}`,
    furigana: `${reading}${core[1]}`,
    domain: `${core[2]}${id}.example.${tld}`,
  };
}

/** The legal form of a business by its corporateType (a listed 株式会社 has eras of its own). */
function businessForm(corporateType: string, listed: boolean): FormKey {
  if (corporateType === 'kabushiki_gaisha') return listed ? 'kkListed' : 'kk';
  if (corporateType === 'yugen_gaisha') return 'yk';
  if (corporateType === 'godo_gaisha') return 'gk';
  return corporateType === 'gomei_gaisha' ? 'gomei' : 'goshi';
}

/** A business name as drawn, before a hard case reshapes it: stem, suffix, the form in front or behind. */
interface BusinessName {
  id: string;
  founded: Date;
  form: FormKey;
  /** the legal form's word and reading */
  word: string;
  reading: string;
  stem: string;
  stemReading: string;
  stemRomaji: string;
  suffix: string;
  suffixReading: string;
  suffixRomaji: string;
  /** the core with the form word put in front (前株) or behind (後株), as drawn */
  withForm: (core: string, formWord: string) => string;
  furigana: string;
  domain: string;
}

/** The very long names (hardCaseSchedule.veryLongName): parts joined by middle dots to 100 characters, one in five cut at 300. */
function veryLongName(random: Random, index: number, profile: Profile, drawn: BusinessName): Naming {
  const { stem, stemReading, suffix, suffixReading, word, reading, withForm, founded, form, domain } = drawn;
  // [written, reading] per part; the reading leaves the middle dots out
  const parts: Array<readonly [string, string]> = [[`${stem}${suffix}`, `${stemReading}${suffixReading}`]];
  const written = () => parts.map(([text]) => text).join('・');
  while (written().length < 100) {
    const [more, moreReading] = random.pick(nameStems);
    const [moreSuffix, moreSuffixReading] = random.pick(profile.suffixes);
    const link = random.pick(['アンド', 'ホールディングス', 'インターナショナル', 'グループ']);
    parts.push([`${more}${moreSuffix}`, `${moreReading}${moreSuffixReading}`], [link, link]);
  }
  // one in five exactly at the schema's maximum of 300 characters, cut as a register would
  if (variant(hardCaseSchedule.veryLongName, index, 5) === 0) {
    while (written().length < 300) {
      const [more, moreReading] = random.pick(nameStems);
      parts.push([more, moreReading]);
    }
    const room = 300 - word.length;
    const kept: Array<readonly [string, string]> = [];
    let used = 0;
    for (const [text, reading] of parts) {
      const left = room - used;
      if (left <= 0) break;
      // the part the cut falls in is written in kana (ニホ, not 日 read ニホ), so name and reading agree
      kept.push(left >= text.length ? [text, reading] : [reading.slice(0, left), reading.slice(0, left)]);
      used += Math.min(left, text.length) + 1;
    }
    // a cut right after a middle dot keeps the dot, as a register's cut would
    const core = `${kept.map(([text]) => text).join('・')}${used === room ? '・' : ''}`;
    return {
      foundedDate: founded,
      form,
      name: withForm(core, word),
      // cut at the schema's 300 characters as the name is
      furigana: withForm(kept.map(([, r]) => r).join(''), reading).slice(0, 300),
      newReading: true,
      domain,
    };
  }
  return {
    foundedDate: founded,
    form,
    name: withForm(written(), word),
    furigana: withForm(parts.map(([, r]) => r).join(''), reading).slice(0, 300),
    newReading: true,
    domain,
  };
}

/** The compatibility-character names (hardCaseSchedule.compatibleName): ㈱, full-width Latin, half-width kana, Ⅱ. */
function compatibleName(random: Random, index: number, drawn: BusinessName): Naming {
  const { id, stem, stemReading, suffix, suffixReading, suffixRomaji, word, reading, withForm } = drawn;
  const { founded, form, furigana, domain } = drawn;
  const kk = form === 'kk' || form === 'kkListed';
  const abbreviations = kk ? ['㈱', '（株）', '(株)'] : form === 'yk' ? ['㈲', '（有）', '(有)'] : null;
  const pick = variant(hardCaseSchedule.compatibleName, index, 6);
  if (abbreviations && pick < 3)
    return {
      foundedDate: founded,
      form,
      name: withForm(`${stem}${suffix}`, abbreviations[pick] as string),
      furigana,
      domain,
    };
  if (pick === 3 || (!abbreviations && pick === 0)) {
    const [latin, latinRomaji, latinReading] = random.pick(latinStems);
    return {
      foundedDate: founded,
      form,
      name: withForm(`${toFullWidth(latin)}${suffix}`, word),
      furigana: withForm(`${latinReading}${suffixReading}`, reading),
      newReading: true,
      domain: `${latinRomaji}-${suffixRomaji}${id}.example.co.jp`,
    };
  }
  if (pick === 4 || (!abbreviations && pick === 1))
    return {
      foundedDate: founded,
      form,
      name: withForm(toHalfWidthKana(`${stemReading}${suffixReading}`), word),
      furigana,
      domain,
    };
  const numeral = random.pick(romanNumerals);
  return {
    foundedDate: founded,
    form,
    name: withForm(`${stem}${suffix}${numeral}`, word),
    furigana: withForm(
      `${stemReading}${suffixReading}${romanNumeralReadings[romanNumerals.indexOf(numeral)]}`,
      reading,
    ),
    newReading: true,
    domain,
  };
}

/** A business (株式会社, 有限会社, 合同会社, 合名会社, 合資会社): founded first, then named as firms of its years were. */
function drawBusinessName(
  random: Random,
  index: number,
  id: string,
  form: FormKey,
  profile: Profile,
  now: Date,
): BusinessName {
  const { word, reading, inFront } = legalForms[form];
  // an old firm has an old-fashioned name: 大和工業, not ソレイユシステムズ (and 昭和 only for Shōwa-era firms)
  const founded = dateIn(random, legalForms[form].eras, now);
  const year = founded.getUTCFullYear();
  const kanji = (text: string) => /^[\u4e00-\u9fff]+$/.test(text);
  const stems = nameStems.filter(
    ([k]) => (year >= 1975 || kanji(k)) && (k !== '昭和' || (year >= 1926 && year < 1990)),
  );
  const oldSuffixes = profile.suffixes.filter(([k]) => kanji(k));
  const suffixes = year < 1975 && oldSuffixes.length > 0 ? oldSuffixes : profile.suffixes;
  const drawn = random.pick(stems);
  const [stem, stemReading, stemRomaji] = scheduledStem(index, year) ?? drawn;
  const [suffix, suffixReading, suffixRomaji] = random.pick(suffixes);
  const front = random.chance(inFront);
  const withForm = (core: string, formWord: string) => (front ? `${formWord}${core}` : `${core}${formWord}`);
  return {
    id,
    founded,
    form,
    word,
    reading,
    stem,
    stemReading,
    stemRomaji,
    suffix,
    suffixReading,
    suffixRomaji,
    withForm,
    furigana: withForm(`${stemReading}${suffixReading}`, reading),
    domain: `${stemRomaji}-${suffixRomaji}${id}.example.co.jp`,
  };
}

function nameBusiness(
  random: Random,
  index: number,
  id: string,
  form: FormKey,
  profile: Profile,
  now: Date,
): Naming {
  const drawn = drawBusinessName(random, index, id, form, profile, now);
  if (scheduled(hardCaseSchedule.veryLongName, index)) return veryLongName(random, index, profile, drawn);
  if (scheduled(hardCaseSchedule.compatibleName, index)) return compatibleName(random, index, drawn);
  const { founded, withForm, stem, suffix, word, furigana, domain } = drawn;
  return { foundedDate: founded, form, name: withForm(`${stem}${suffix}`, word), furigana, domain };
}

function nameCompany(
  random: Random,
  index: number,
  corporateType: string,
  profile: Profile,
  listed: boolean,
  head: City,
  now: Date,
): Naming {
  const id = String(index);
  if (corporateType === 'local_gov') return nameMunicipality(head, id);
  if (corporateType === 'national_org') return nameNationalBody(random, id);
  if (corporateType === 'foreign_company') return nameForeignCompany(random, id);
  if (corporateType === 'other') return nameNonProfit(random, profile, id);
  return nameBusiness(random, index, id, businessForm(corporateType, listed), profile, now);
}

function summary(random: Random, profile: Profile, index: number): string {
  const p = summaryParts;
  const text = `${random.pick(p.openings)}${random.pick(profile.fields)}${random.pick(p.verbs)}${random.pick(p.extras)}${random.pick(p.endings)}`;
  if (!scheduled(hardCaseSchedule.compatibleSummary, index)) return text;
  const [a, b, c] = circledNumbers;
  return `${text}主な事業は${a}${random.pick(profile.fields)}、${b}${random.pick(profile.fields)}、${c}関連サービスの３本柱です。営業時間は９：００～１８：００、℡ でもお気軽にお問い合わせください。`;
}

/** A company's kind, drawn first: staffing firm or not, corporateType, line of business (and trade), listed or not. */
interface CompanyKind {
  staffing: boolean;
  corporateType: string;
  /** the line of business with its trade's codes and name endings */
  chosen: Profile;
  listed: boolean;
}

function drawKind(random: Random, index: number): CompanyKind {
  const staffing = random.chance(0.004) || index === 0;
  const corporateType = staffing ? 'kabushiki_gaisha' : random.weighted(corporateTypes);
  const line = staffing
    ? staffingProfile
    : corporateType === 'national_org' || corporateType === 'local_gov'
      ? publicProfile
      : random.weighted(profiles.map((p) => [p, p.weight] as const));
  const trade = line.trades ? random.pick(line.trades) : null;
  const chosen: Profile = trade ? { ...line, ...trade } : line;
  const listed =
    corporateType === 'kabushiki_gaisha' && (staffing ? random.chance(0.5) : random.chance(0.035));
  return { staffing, corporateType, chosen, listed };
}

type Namesake = (corporateType: string, prefectureId: number, foundedYear: number) => NameSource | null;

/** The company's name and head-office city: drawn, or an earlier company's name (`namesake`), then a formula start. */
function nameOf(
  random: Random,
  index: number,
  kind: CompanyKind,
  now: Date,
  namesake: Namesake | undefined,
): { naming: Naming; head: City } {
  const { staffing, corporateType, chosen, listed } = kind;
  const place = pickPlace(random);
  const drawn = nameCompany(random, index, corporateType, chosen, listed, place, now);
  const head = drawn.seat ?? place;
  const taken =
    namesake && drawn.foundedDate && !staffing
      ? namesake(corporateType, head.prefectureId, drawn.foundedDate.getUTCFullYear())
      : null;
  const namedAs: Naming = taken
    ? {
        ...drawn,
        name: taken.name,
        furigana: taken.furigana,
        domain: taken.domain.replace(/\d+(\.example\.)/, `${index}$1`),
      }
    : drawn;
  // a payload in front of the name draws nothing: every other record stays as it was
  return { naming: { ...namedAs, name: withFormulaStart(namedAs.name, index) }, head };
}

/** Head count: log-normal by kind and form, long-tailed (listed companies and staffing firms far larger). */
function headCount(random: Random, kind: CompanyKind, form: FormKey | null): number {
  const { staffing, listed, corporateType } = kind;
  return Math.max(
    1,
    Math.round(
      staffing
        ? random.logNormal(2500, 0.9)
        : listed
          ? Math.max(30, random.logNormal(1200, 1.1))
          : corporateType === 'national_org' || corporateType === 'local_gov'
            ? random.logNormal(900, 0.9)
            : corporateType === 'foreign_company'
              ? random.logNormal(60, 1.3)
              : form === 'kk'
                ? random.logNormal(18, 1.4)
                : form === 'gk'
                  ? random.chance(0.03)
                    ? random.logNormal(400, 1)
                    : random.logNormal(4, 1.1)
                  : form === 'dokuho'
                    ? random.logNormal(600, 0.9)
                    : form === 'shafuku' || form === 'iryo' || form === 'gakko'
                      ? random.logNormal(80, 1)
                      : random.logNormal(5, 0.9),
    ),
  );
}

/** The head office, then branches (staffing firms many, small firms rarely one), half in the head's prefecture. */
function makeOffices(random: Random, head: City, employees: number, staffing: boolean): Office[] {
  const headOffice = makeOffice(random, head, employees > 1000);
  const branchCount = staffing
    ? random.int(20, 80)
    : employees > 300
      ? random.int(1, 8)
      : employees > 30
        ? random.int(0, 2)
        : random.chance(0.15)
          ? 1
          : 0;
  const offices = [headOffice];
  for (let i = 0; i < branchCount; i++) {
    const city = random.chance(0.5)
      ? pickCity(random, head.prefectureId)
      : pickCity(random, random.weighted(prefectureWeights));
    offices.push(makeOffice(random, city));
  }
  return offices;
}

/** The founding date: drawn with the name, else in the eras of the form or type (a local government has none). */
function foundingOf(random: Random, corporateType: string, naming: Naming, now: Date): Date | null {
  const form = naming.form;
  const eras =
    form !== null
      ? legalForms[form].eras
      : corporateType === 'foreign_company'
        ? ([
            ['1870-01-01', '1950-12-31', 35],
            ['1951-01-01', '2018-12-31', 65],
          ] as const)
        : naming.founded
          ? ([[naming.founded, naming.founded, 1]] as const)
          : null;
  return naming.foundedDate ?? (eras ? dateIn(random, eras, now) : null);
}

/** Head counts 1, 7 and 13 months ago and their differences, or unknown (public bodies more often). */
function staffHistory(random: Random, employees: number, ageDays: number, corporateType: string) {
  const history = headcountHistory(random, employees, employees > 300, ageDays);
  const known = random.chance(corporateType === 'local_gov' || corporateType === 'national_org' ? 0.6 : 0.88);
  const emp1 = known ? history.emp1 : null;
  const emp7 = known ? history.emp7 : null;
  const emp13 = known ? history.emp13 : null;
  const diff6 = emp1 !== null && emp7 !== null ? emp1 - emp7 : null;
  const diff12 = emp1 !== null && emp13 !== null ? emp1 - emp13 : null;
  return { emp1, emp7, emp13, diff6, diff12 };
}

/** The markets a listed company is on (none when not listed). */
function marketsOf(random: Random, listed: boolean): string[] {
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
  // some Tokyo Prime companies founded in Aichi are also on the Nagoya Premier market
  if (listed && random.chance(0.1) && !listedOn.includes('nse_premier')) listedOn.push('nse_premier');
  return listedOn;
}

/** Yearly ad spend, its range and the media paid for: spend grows with size (a 5-person firm rarely spends 10 million yen). */
function adSpendOf(random: Random, employees: number, profile: Profile) {
  const hasSpend = random.chance(0.75);
  const spendLevel = Math.round(1 + 1.7 * Math.log10(employees + 1) + normal(random) * 1.3);
  const [spend, low, high] = random.chance(employees < 10 ? 0.45 : 0.2)
    ? (spendRanges[0] as (typeof spendRanges)[number])
    : (spendRanges[Math.min(8, Math.max(1, spendLevel))] as (typeof spendRanges)[number]);
  const paidMedia =
    hasSpend && spend !== 'none'
      ? weightedSample(random, profile.media, Math.min(4, 1 + Math.floor(Math.max(0, spendLevel - 1) / 2)))
      : [];
  return { hasSpend, spend, low, high, paidMedia };
}

/** Industry and business-type codes (major, minor): of the public body or association, else of the line. */
function codesOf(random: Random, masters: Masters, naming: Naming, corporateType: string, profile: Profile) {
  const codes = (naming.form && publicCodes[naming.form]) ?? publicCodes[corporateType] ?? profile;
  const [industryCategoryId, industrySubCategoryId] = pickSub(
    random,
    masters,
    codes.industries,
    'industries',
  );
  const [businessCategoryId, businessSubCategoryId] = pickSub(
    random,
    masters,
    codes.businessTypes,
    'business-types',
  );
  return { industryCategoryId, industrySubCategoryId, businessCategoryId, businessSubCategoryId };
}

/** What makeCompany has drawn before the record's own draws (made in the record's field order). */
interface CompanyFacts {
  index: number;
  kind: CompanyKind;
  naming: Naming;
  profile: Profile;
  head: City;
  headOffice: Office;
  number: string;
  codes: ReturnType<typeof codesOf>;
  employees: number;
  listedOn: string[];
  founded: Date | null;
  young: boolean;
  revenue: number;
  history: ReturnType<typeof staffHistory>;
  licences: Pick<CompanyStub, 'hasDispatchLicense' | 'hasRecruitmentLicense'>;
  ad: ReturnType<typeof adSpendOf>;
}

function corporateRecord(random: Random, facts: CompanyFacts, now: Date): CorporateSource {
  const { index, kind, naming, profile, head, headOffice, employees, founded, history, ad } = facts;
  const { corporateType, listed } = kind;
  const form = naming.form;
  const phone = headOffice.phone;
  const { emp1, emp7, emp13, diff6, diff12 } = history;
  return {
    type: 'corporate',
    corporateNumber: facts.number,
    name: naming.name,
    furigana: naming.furigana,
    corporateType,
    postalCode: random.chance(0.94) ? headOffice.postalCode : null,
    prefectureId: head.prefectureId,
    cityName: head.name,
    streetAddress: writeStreet(random, headOffice),
    ...facts.codes,
    phoneNumber: random.chance(0.9) ? phone : null,
    fax: random.chance(0.5) ? faxBeside(random, phone) : null,
    websiteUrl: random.chance(0.8) ? `https://www.${naming.domain}/` : null,
    email: random.chance(0.4) ? `info@${naming.domain}` : null,
    employeeCount: random.chance(0.95) ? employees : null,
    capitalMillionYen:
      random.chance(0.92) && form !== null
        ? capitalFor(random, form, employees, listed, founded ?? now)
        : null,
    revenueRange: random.chance(corporateType === 'local_gov' || corporateType === 'national_org' ? 0 : 0.8)
      ? revenueFor(facts.revenue)
      : null,
    marketCodes: facts.listedOn,
    fiscalMonth:
      corporateType === 'local_gov' || corporateType === 'national_org'
        ? '3月'
        : random.chance(0.9)
          ? random.weighted(
              fiscalMonths.map((month) => [month, month === '3月' ? 12 : month === '12月' ? 5 : 1] as const),
            )
          : null,
    ceoName: random.chance(0.95) ? `${random.pick(surnames)} ${random.pick(givenNames)}` : null,
    foundedAt: founded && random.chance(0.92) ? `${founded.toISOString().slice(0, 10)}T00:00:00+09:00` : null,
    ...facts.licences,
    emp1MAgo: emp1,
    emp7MAgo: emp7,
    emp13MAgo: emp13,
    employeeDiff6mMin: diff6,
    employeeDiff12m: diff12,
    employeeTransition: diff6 !== null && diff12 !== null ? transitionFlags(random, diff6, diff12) : null,
    fundingSeries:
      facts.young && !listed && random.chance(fundedShare[profile.key] ?? 0.12)
        ? random.pick(fundingSeries)
        : null,
    totalAdCost: ad.hasSpend ? random.int(ad.low, ad.high) : null,
    paidMediaSpend: ad.hasSpend ? ad.spend : null,
    paidMediaIds: ad.paidMedia,
    summary: random.chance(0.9) ? summary(random, profile, index) : null,
  };
}

/** The name a later company of its type may take: that of a 株式会社, 有限会社 or 合同会社, not a very long one. */
function nameSourceOf(index: number, corporateType: string, naming: Naming, head: City): NameSource | null {
  const form = naming.form;
  const plainForm = form === 'kk' || form === 'kkListed' || form === 'yk' || form === 'gk';
  return plainForm && naming.foundedDate && !scheduled(hardCaseSchedule.veryLongName, index)
    ? {
        corporateType,
        prefectureId: head.prefectureId,
        foundedYear: naming.foundedDate.getUTCFullYear(),
        name: naming.name,
        furigana: naming.furigana,
        domain: naming.domain,
      }
    : null;
}

/**
 * One company. `namesake` may give it the name of an earlier company of its own type (see
 * generator.ts): only the name, reading and web domain change, so every drawn fact stays as
 * it was. Returns the name it can give a later company (`source`): that of a 株式会社,
 * 有限会社 or 合同会社, not one of the very long names.
 */
export function makeCompany(
  random: Random,
  index: number,
  masters: Masters,
  now: Date,
  namesake?: Namesake,
): { record: CorporateSource; stub: CompanyStub; source: NameSource | null } {
  const kind = drawKind(random, index);
  const { staffing, corporateType, chosen, listed } = kind;
  const { naming, head } = nameOf(random, index, kind, now, namesake);
  // an association or foundation outside care and education works as a public body does
  const profile =
    corporateType === 'other' && chosen.key !== 'care' && chosen.key !== 'education' ? publicProfile : chosen;
  const employees = headCount(random, kind, naming.form);
  const offices = makeOffices(random, head, employees, staffing);
  const headOffice = offices[0] as Office;
  const founded = foundingOf(random, corporateType, naming, now);
  const ageDays = founded ? (now.getTime() - founded.getTime()) / day : 36_500;
  const young = corporateType === 'kabushiki_gaisha' && ageDays < 3650;
  const history = staffHistory(random, employees, ageDays, corporateType);
  const listedOn = marketsOf(random, listed);
  const ad = adSpendOf(random, employees, profile);
  const codes = codesOf(random, masters, naming, corporateType, profile);
  const hasDispatchLicense = staffing ? true : random.chance(0.9) ? random.chance(0.04) : null;
  const hasRecruitmentLicense = staffing ? true : random.chance(0.9) ? random.chance(0.05) : null;
  const revenue =
    employees * (revenuePerHead[profile.key] ?? 15) * (listed ? 1.5 : 1) * random.logNormal(1, 0.5);
  const number = corporateNumber(random, index);
  // Readings were once left out of 10% of records by a draw made here, after the number. The
  // draw is still made (where it was made then), so that a seed's companies stay what they
  // were: the tests and bench sets built on a seed keep their data.
  if (!naming.newReading) random.chance(0.9);
  const licences = { hasDispatchLicense, hasRecruitmentLicense };
  const facts = { index, kind, naming, profile, head, headOffice, number, codes, employees, listedOn };
  const record = corporateRecord(random, { ...facts, founded, young, revenue, history, licences, ad }, now);
  // about 30% of companies have no posting at all
  const weight = staffing ? random.int(150, 400) : random.chance(0.3) ? 0 : random.logNormal(1, 1.1);
  return {
    record,
    source: nameSourceOf(index, corporateType, naming, head),
    stub: {
      corporateNumber: record.corporateNumber,
      name: naming.name,
      domain: naming.domain,
      staffing,
      ...licences,
      offices,
      weight,
      profile,
      paidMedia: ad.paidMedia,
    },
  };
}
