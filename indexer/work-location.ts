/**
 * workLocationCount (docs/api.md, "Records"): distinct normalised work addresses of a company's
 * postings on site or of unknown kind. Differently written forms of one address give one key, e.g.
 *   「渋谷区」「道玄坂１丁目２番地３号」 and 「渋谷区」「道玄坂 1-2-3」 -> `13|渋谷区|道玄坂1-2-3`.
 * Not counted: remote, client_site and one_off postings, and addresses without a city or a
 * street part (too little to tell two places apart).
 */
import type { WorkLocationSource } from './source-types.js';

/**
 * The kinds whose address counts as one of the company's work places: `onsite`, and `unknown`
 * (the source did not say, but gave a city and a street: leaving it out would undercount a
 * company whose source never states the kind), docs/decisions/source-records.md.
 */
export const countedWorkLocationKinds: ReadonlySet<WorkLocationSource['kind']> = new Set([
  'onsite',
  'unknown',
]);

const kanjiDigits: Record<string, number> = {
  〇: 0,
  一: 1,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};

/** 一 -> 1, 十二 -> 12, 二十三 -> 23, 百五 -> 105 (enough for 丁目・番地・号). */
function kanjiNumber(text: string): string {
  let total = 0;
  let current = 0;
  for (const char of text) {
    if (char === '千') {
      total += (current || 1) * 1000;
      current = 0;
    } else if (char === '百') {
      total += (current || 1) * 100;
      current = 0;
    } else if (char === '十') {
      total += (current || 1) * 10;
      current = 0;
    } else current = current * 10 + (kanjiDigits[char] ?? 0);
  }
  return String(total + current);
}

const dashes = /[‐‑‒–—―−⁃﹣ー─━]/g;

/** One written form of a street part, e.g. `道玄坂一丁目2番地の3号 ＡＢＣビル` -> `道玄坂1-2-3abcビル`. */
export function normalizeStreet(text: string): string {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/\s+/g, '')
      .replace(/[〇一二三四五六七八九十百千]+(?=丁目|番|号|-)/g, kanjiNumber)
      // a dash variant between digits (or after one, as in 1ー2) is a separator
      .replace(/(\d)[‐‑‒–—―−⁃﹣ー─━-]+/g, '$1-')
      .replace(/(\d+)丁目/g, '$1-')
      .replace(/(\d+)番地?(の)?/g, '$1-')
      .replace(/(\d+)号/g, '$1')
      .replace(/(\d)の(?=\d)/g, '$1-')
      .replace(/-+/g, '-')
      .replace(/-(?=\D|$)/g, '')
      .replace(dashes, 'ー')
  );
}

export function normalizeCity(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, '');
}

/** The key of one countable work place, or null when the posting is not counted. */
export function workLocationKey(location: WorkLocationSource | null | undefined): string | null {
  if (!location) return null;
  if (!countedWorkLocationKinds.has(location.kind)) return null;
  let city = normalizeCity(location.cityName ?? '');
  let street = normalizeStreet(location.address ?? '');
  // the city sometimes arrives inside the street part: 「渋谷区道玄坂1-2-3」
  if (city && street.startsWith(city)) street = street.slice(city.length);
  if (!city) {
    const match = /^(.+?[市区町村])(.+)$/.exec(street);
    if (match?.[1] && match[2]) {
      city = match[1];
      street = match[2];
    }
  }
  if (!city || !street) return null;
  return `${location.prefectureId ?? ''}|${city}|${street}`;
}

export function countWorkLocations(locations: Iterable<WorkLocationSource | null | undefined>): number {
  const keys = new Set<string>();
  for (const location of locations) {
    const key = workLocationKey(location);
    if (key) keys.add(key);
  }
  return keys.size;
}
