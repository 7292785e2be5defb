/**
 * What a free-text address says about a company, for matching (src/names/match.ts): the
 * prefecture named at its start (the prefectures master, data/masters/prefectures.json) and
 * the rest, in which a company's `cityName` is looked for as a prefix.
 *
 *   '〒150-0043 東京都渋谷区道玄坂1-2-3' -> { prefectureId: 13, rest: '渋谷区道玄坂1-2-3' }
 *   '渋谷区道玄坂1-2-3'                   -> { prefectureId: undefined, rest: '渋谷区道玄坂1-2-3' }
 */
import { readMasterFile } from '../masters/masters.js';

export interface ParsedAddress {
  prefectureId?: number;
  rest: string;
}

/** Longest names first, so no name is taken for the start of a longer one. */
const prefectures = readMasterFile('prefectures')
  .items.map((item) => ({ id: Number(item.id), name: String(item.name) }))
  .sort((a, b) => b.name.length - a.name.length);

/** NFKC, no spaces: how an address and a `cityName` are compared. */
export function foldAddress(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, '');
}

export function parseAddress(address: string): ParsedAddress {
  const folded = foldAddress(address).replace(/^〒?\d{3}-?\d{4}/, '');
  const prefecture = prefectures.find((candidate) => folded.startsWith(candidate.name));
  if (!prefecture) return { rest: folded };
  return { prefectureId: prefecture.id, rest: folded.slice(prefecture.name.length) };
}

/** Digits only, a +81 country code as the leading 0: '+81 3-1234-5678' -> '0312345678'. */
export function phoneDigits(phone: string): string {
  const folded = phone.normalize('NFKC').trim();
  const digits = folded.replace(/\D/g, '');
  return folded.startsWith('+81') ? `0${digits.slice(2)}` : digits;
}

/** The host of a website, lower case, `www.` dropped: 'https://WWW.Example.jp/a' -> 'example.jp'. */
export function websiteHost(url: string): string | undefined {
  const folded = url.normalize('NFKC').trim();
  if (folded === '') return undefined;
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(folded) ? folded : `http://${folded}`).hostname;
    return host.toLowerCase().replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
}
