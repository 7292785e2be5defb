/**
 * Seeded registry data in the NTA's published download format (indexer/registry/format.ts):
 * full files per prefecture (or one nationwide file) and a day's diff, for loading a million
 * companies or more without the real files. Every company is a pure function of (seed, its
 * index), so the diff generator can rename, move or close a company the full file holds
 * without keeping the full file in memory: constant memory at any size.
 *
 *   companyRows(universe, 0)
 *   // [['1', '5130001000000', '01', '0', '2015-10-05', '2015-10-05', '株式会社日本建設', '', '301',
 *   //   '東京都', '渋谷区', '桜丘町１－２－３', '', '13', '113', '1500031', ...]]
 *
 * Names reuse the sample generator's name parts (sample-data/vocabulary.ts, profiles.ts)
 * and places (sample-data/data/places.json): a 渋谷区 address has a 150-/151- postal code.
 */

import {
  type City,
  foreignStems,
  nameStems,
  nationalBodies,
  nonProfitFields,
  pickCity,
  postalCode,
  prefectureWeights,
  profiles,
  Random,
  surnames,
  toFullWidth,
} from '../../sample-data/index.js';
import { corporateCheckDigit } from '../corporate-number.js';
import { type RegistryColumn, registryColumns } from './format.js';

export type RowValues = Partial<Record<RegistryColumn, string>>;

/** The generated register: its size, seed and the full file's date (YYYY-MM-DD). */
export interface Universe {
  companies: number;
  seed: number;
  date: string;
}

/** 法人種別 with its share of the register (roughly the published nationwide mix). */
const kinds: ReadonlyArray<readonly [string, number]> = [
  ['301', 520],
  ['302', 260],
  ['305', 70],
  ['304', 12],
  ['303', 3],
  ['399', 125],
  ['401', 6],
  ['201', 3],
  ['101', 1],
];

const forms: Record<string, string> = {
  '301': '株式会社',
  '302': '有限会社',
  '303': '合名会社',
  '304': '合資会社',
  '305': '合同会社',
};

const otherForms = [
  '一般社団法人',
  '一般財団法人',
  '医療法人社団',
  '特定非営利活動法人',
  '社会福祉法人',
  '学校法人',
  '宗教法人',
  '農事組合法人',
];

const foreignForms = ['インク', 'コーポレーション', 'リミテッド', 'エルエルシー'];
const abroad = [
  'アメリカ合衆国デラウェア州ウィルミントン市オレンジ通り１２０９',
  'グレートブリテン及び北アイルランド連合王国ロンドン市ストランド８０',
  'シンガポール共和国マリーナ・ブールバード１０',
  '中華人民共和国香港特別行政区セントラル皇后大道中１５',
];

const tradeSuffixes = profiles.flatMap((profile) => [
  ...profile.suffixes,
  ...(profile.trades ?? []).flatMap((trade) => trade.suffixes),
]);

/** Days since the epoch <-> YYYY-MM-DD. */
export const dayOf = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
export const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
/** The day the corporate numbers were first assigned. */
const firstAssignment = dayOf('2015-10-05');

/** A 32-bit mix of the seed and an index (murmur3's finaliser), the seed of one company. */
export function mix(seed: number, index: number): number {
  let h = (seed * 0x9e3779b1) ^ index;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/** FNV-1a: a stable 3-digit city code per city name (the real JIS codes are not in places.json). */
function cityCode(city: City): string {
  let h = 0x811c9dc5;
  for (const char of city.name) h = Math.imul(h ^ (char.codePointAt(0) as number), 0x01000193);
  return String(100 + ((h >>> 0) % 900));
}

/** Companies per prefecture by weight (largest remainder), as index ranges in code order. */
export function prefectureRanges(
  companies: number,
): Array<{ prefectureId: number; start: number; count: number }> {
  const ordered = [...prefectureWeights].sort((a, b) => a[0] - b[0]);
  const total = ordered.reduce((sum, [, weight]) => sum + weight, 0);
  const shares = ordered.map(([id, weight]) => ({ id, exact: (companies * weight) / total }));
  const counts = shares.map((share) => Math.floor(share.exact));
  let left = companies - counts.reduce((a, b) => a + b, 0);
  const byRemainder = shares
    .map((share, i) => ({ i, rest: share.exact - Math.floor(share.exact) }))
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    counts[i] = (counts[i] as number) + 1;
  }
  let start = 0;
  return ordered.map(([prefectureId], i) => {
    const range = { prefectureId, start, count: counts[i] as number };
    start += range.count;
    return range;
  });
}

/**
 * The company's corporate number: a registry office of its prefecture (4 digits), the kind
 * of register (2) and a serial (6), then the check digit in front. Unique per index below 7M.
 */
export function corporateNumberAt(index: number, prefectureId: number): string {
  const office = String(prefectureId * 100 + (index % 7) + 1).padStart(4, '0');
  const base = `${office}01${String(Math.floor(index / 7)).padStart(6, '0')}`;
  return `${corporateCheckDigit(base)}${base}`;
}

interface Named {
  name: string;
  reading: string;
  romaji: string;
}

function companyName(random: Random, kind: string, city: City): Named {
  if (kind === '101') {
    const [name, reading, romaji] = random.pick(nationalBodies);
    return { name, reading, romaji };
  }
  if (kind === '201') {
    const name = city.name.replace(/^(.+?[市])(.+区)$/, '$1');
    return { name, reading: '', romaji: '' };
  }
  if (kind === '401') {
    const [stem, romaji] = random.pick(foreignStems);
    const form = random.pick(foreignForms);
    return { name: `${stem}・${form}`, reading: `${stem}${form}`.replace(/・/g, ''), romaji };
  }
  const [stem, stemReading, stemRomaji] = random.chance(0.3)
    ? (() => {
        const surname = random.pick(surnames);
        return [surname, '', surname] as const;
      })()
    : random.pick(nameStems);
  const second = random.chance(0.3) ? random.pick(nameStems) : null;
  const [suffix, suffixReading, suffixRomaji] =
    kind === '399' && random.chance(0.5) ? random.pick(nonProfitFields) : random.pick(tradeSuffixes);
  const core = `${stem}${second?.[0] ?? ''}${suffix}`;
  const reading = stemReading ? `${stemReading}${second?.[1] ?? ''}${suffixReading}` : '';
  const romaji = `${stemRomaji} ${second?.[2] ?? ''} ${suffixRomaji}`.replace(/\s+/g, ' ').trim();
  if (kind === '399') return { name: `${random.pick(otherForms)}${core}`, reading, romaji };
  const form = forms[kind] as string;
  // 株式会社 stands before the name in about two names of three (前株), after it otherwise
  const before = kind !== '301' || random.chance(0.65);
  return { name: before ? `${form}${core}` : `${core}${form}`, reading, romaji };
}

function address(random: Random, prefectureId: number): RowValues {
  const city = pickCity(random, prefectureId);
  const town = random.pick(city.towns);
  const ban = random.int(1, 40);
  const go = random.int(1, 30);
  const street =
    town.chome > 0 ? `${town.name}${random.int(1, town.chome)}丁目${ban}-${go}` : `${town.name}${ban}-${go}`;
  return {
    prefectureName: prefectureNames[prefectureId - 1] as string,
    cityName: city.name,
    streetNumber: toFullWidth(street),
    prefectureCode: String(prefectureId).padStart(2, '0'),
    cityCode: cityCode(city),
    postCode: postalCode(random, city).replace('-', ''),
  };
}

/** JIS X 0401 order (data/masters/prefectures.json). */
// biome-ignore format: ten prefectures a line
export const prefectureNames = [
  '北海道', '青森県', '岩手県', '宮城県', '秋田県', '山形県', '福島県', '茨城県', '栃木県', '群馬県',
  '埼玉県', '千葉県', '東京都', '神奈川県', '新潟県', '富山県', '石川県', '福井県', '山梨県', '長野県',
  '岐阜県', '静岡県', '愛知県', '三重県', '滋賀県', '京都府', '大阪府', '兵庫県', '奈良県', '和歌山県',
  '鳥取県', '島根県', '岡山県', '広島県', '山口県', '徳島県', '香川県', '愛媛県', '高知県', '福岡県',
  '佐賀県', '長崎県', '熊本県', '大分県', '宮崎県', '鹿児島県', '沖縄県',
];

/** The prefecture of index `index` (binary search over the ranges). */
export function prefectureAt(ranges: ReturnType<typeof prefectureRanges>, index: number): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((ranges[mid]?.start ?? 0) <= index) low = mid;
    else high = mid - 1;
  }
  return ranges[low]?.prefectureId ?? 13;
}

export interface GeneratedCompany {
  index: number;
  corporateNumber: string;
  /** rows older than the current one (latest=0), oldest first */
  history: RowValues[];
  /** the company's current row (latest=1) */
  current: RowValues;
  closed: boolean;
}

/** What happened to a company before the full file: renamed, moved, closed (shares per 1000). */
const pastEvents = { renamed: 60, moved: 40, closed: 60, absorbed: 10 };

/** Company `index` of the register: the same (seed, index) gives the same company. */
export function companyAt(universe: Universe, prefectureId: number, index: number): GeneratedCompany {
  const random = new Random(mix(universe.seed, index));
  const corporateNumber = corporateNumberAt(index, prefectureId);
  const kind = random.weighted(kinds);
  const place = address(random, prefectureId);
  const foreignOnly = kind === '401' && random.chance(0.5);
  const city = pickCity(random, prefectureId);
  const named = companyName(random, kind, city);
  const last = dayOf(universe.date);
  const assigned = random.chance(0.7) ? firstAssignment : random.int(firstAssignment + 1, last - 30);
  const assignmentDate = dateOf(assigned);
  const base: RowValues = {
    corporateNumber,
    process: '01',
    correct: '0',
    updateDate: assignmentDate,
    changeDate: assignmentDate,
    name: named.name,
    kind,
    ...(foreignOnly ? { addressOutside: random.pick(abroad) } : place),
    assignmentDate,
    latest: '1',
    enName: named.romaji && random.chance(0.05) ? englishName(named.romaji, kind) : '',
    furigana: named.reading && random.chance(0.1) ? named.reading : '',
    hihyoji: random.chance(0.001) ? '1' : '0',
  };
  const history: RowValues[] = [];
  let current = base;
  const event = random.int(0, 999);
  const changed = dateOf(random.int(assigned + 1, last - 1));
  const eventRow = (values: RowValues): RowValues => {
    history.push({ ...current, latest: '0' });
    return { ...current, changeDate: changed, updateDate: changed, ...values };
  };
  let closed = false;
  const { renamed, moved, closed: closing, absorbed } = pastEvents;
  if (event < renamed) current = eventRow({ process: '11', name: companyName(random, kind, city).name });
  else if (event < renamed + moved && !foreignOnly)
    current = eventRow({ process: '12', ...address(random, prefectureId) });
  else if (event < renamed + moved + closing) {
    closed = true;
    current = eventRow({ process: '21', closeDate: changed, closeCause: random.pick(['01', '21', '31']) });
  } else if (event < renamed + moved + closing + absorbed && universe.companies > 1) {
    closed = true;
    const successor = (index + 1) % universe.companies;
    current = eventRow({
      process: '71',
      closeDate: changed,
      closeCause: '11',
      successorCorporateNumber: corporateNumberAt(successor, prefectureAt(rangesOf(universe), successor)),
    });
  }
  return { index, corporateNumber, history, current, closed };
}

function englishName(romaji: string, kind: string): string {
  const words = romaji.replace(/-/g, ' ').split(' ').filter(Boolean);
  const title = words.map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`).join(' ');
  return kind === '301' ? `${title} Co., Ltd.` : kind === '305' ? `${title} LLC` : title;
}

const rangesCache = new Map<number, ReturnType<typeof prefectureRanges>>();
export function rangesOf(universe: Universe): ReturnType<typeof prefectureRanges> {
  let ranges = rangesCache.get(universe.companies);
  if (!ranges) {
    ranges = prefectureRanges(universe.companies);
    rangesCache.set(universe.companies, ranges);
  }
  return ranges;
}

/** One CSV line as published: every field double-quoted, CRLF. */
export function csvLine(sequence: number, values: RowValues): string {
  const all: RowValues = { ...values, sequenceNumber: String(sequence) };
  return `${registryColumns.map((column) => `"${(all[column] ?? '').replace(/"/g, '""')}"`).join(',')}\r\n`;
}

/** The rows of one prefecture's full file (history rows before the company's current row). */
export function* prefectureRows(universe: Universe, prefectureId: number): Generator<RowValues> {
  const range = rangesOf(universe).find((entry) => entry.prefectureId === prefectureId);
  if (!range) return;
  for (let index = range.start; index < range.start + range.count; index++) {
    const company = companyAt(universe, prefectureId, index);
    yield* company.history;
    yield company.current;
  }
}

/** The company at `index` wherever it lives (the diff generator's look-up). */
export function companyByIndex(universe: Universe, index: number): GeneratedCompany {
  return companyAt(universe, prefectureAt(rangesOf(universe), index), index);
}

/** Shares of a day's diff (per 100 rows' worth of changes). */
const diffMix: ReadonlyArray<readonly [DiffKind, number]> = [
  ['new', 40],
  ['rename', 18],
  ['address', 20],
  ['closure', 12],
  ['restoration', 5],
  ['deletion', 5],
];
export type DiffKind = 'new' | 'rename' | 'address' | 'closure' | 'restoration' | 'deletion';

/**
 * A day's diff of about `changes` changes to the register of `universe`, dated `date` (after
 * the full file's date): new companies (indexes past the register), renames and moves (with
 * the row they replace, latest=0), closures, restorations of closed companies, deletions.
 * Each company changes at most once.
 */
export function* diffRows(
  universe: Universe,
  date: string,
  changes: number,
  counts: Record<DiffKind, number> = emptyDiffCounts(),
): Generator<RowValues> {
  const random = new Random(mix(universe.seed ^ 0x5f3759df, dayOf(date)));
  const touched = new Set<number>();
  const previous = dateOf(dayOf(date) - 1);
  const stamp = { updateDate: date, changeDate: previous };
  let fresh = universe.companies;
  for (let made = 0; made < changes; made++) {
    const kind = random.weighted(diffMix);
    if (kind === 'new') {
      const prefectureId = random.weighted(prefectureWeights);
      const company = companyAt(universe, prefectureId, fresh++);
      counts.new++;
      // the company as first registered (its drawn past, if any, is not its own yet)
      const first = company.history[0] ?? company.current;
      yield {
        ...first,
        ...stamp,
        process: '01',
        assignmentDate: previous,
        closeDate: '',
        closeCause: '',
        successorCorporateNumber: '',
        latest: '1',
      };
      continue;
    }
    const company = pickExisting(universe, random, touched, kind === 'restoration');
    if (!company) continue;
    const row = company.current;
    counts[kind]++;
    if (kind === 'rename' || kind === 'address') {
      yield { ...row, latest: '0' };
      const prefectureId = Number(row.prefectureCode || '13');
      const rename = () => companyName(random, row.kind as string, pickCity(random, prefectureId)).name;
      yield kind === 'rename'
        ? { ...row, ...stamp, process: '11', name: rename(), latest: '1' }
        : {
            ...row,
            ...stamp,
            process: '12',
            ...address(random, prefectureId),
            addressOutside: '',
            latest: '1',
          };
    } else if (kind === 'closure')
      yield { ...row, ...stamp, process: '21', closeDate: previous, closeCause: '01', latest: '1' };
    else if (kind === 'restoration')
      yield { ...row, ...stamp, process: '22', closeDate: '', closeCause: '', successorCorporateNumber: '' };
    else yield { ...row, ...stamp, process: '99', latest: '1' };
  }
}

export function emptyDiffCounts(): Record<DiffKind, number> {
  return { new: 0, rename: 0, address: 0, closure: 0, restoration: 0, deletion: 0 };
}

/** A company not changed yet in this diff: an open one, or a closed one for a restoration. */
function pickExisting(
  universe: Universe,
  random: Random,
  touched: Set<number>,
  closed: boolean,
): GeneratedCompany | undefined {
  for (let attempt = 0; attempt < 200; attempt++) {
    const index = random.int(0, universe.companies - 1);
    if (touched.has(index)) continue;
    const company = companyByIndex(universe, index);
    if (company.closed !== closed || company.current.hihyoji === '1') continue;
    touched.add(index);
    return company;
  }
  return undefined;
}
