/**
 * What one record of a match request says, folded once: its name's keys and legal forms, and
 * the evidence beside the name (prefecture, city, phone, website, corporate number).
 *
 *   evidenceOf({name: '㈱ABCテクノロジーズ 厚木工場', address: '神奈川県厚木市…', corporateNumber: '1234-5678-9012-3'})
 *   -> {keys: {name: 'abcてくのろじず', spoken: 'えびしてくのろじず'}, legalForms: ['株式会社'],
 *       prefectures: [14], addressRest: '厚木市…', corporateNumber: '1234567890123' (when valid)}
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';
import { parseAddress, phoneDigits, websiteHost } from '../text/address.js';
import { isValidCorporateNumber } from '../text/corporate-number.js';
import { nameKey, nameKeyAndForms, queryKeys, readingKey, spokenKey } from './keys.js';
import type { ReadingAnalyser } from './reading.js';

export interface MatchRecord {
  name: string;
  prefectureId?: number;
  address?: string;
  phoneNumber?: string;
  websiteUrl?: string;
  corporateNumber?: string;
}

export interface Evidence {
  keys: { name: string; spoken: string; reading?: string; romaji?: string };
  /** The reading key is the analyser's reading of a name written partly in kana, partly in kanji. */
  readingDerived?: boolean;
  /** The legal forms the name carries (株式会社, 学校法人): a company of another form disagrees. */
  legalForms: string[];
  unmatchable: boolean;
  /** Prefectures the record names (prefectureId, the address's); two different: none can agree. */
  prefectures: number[];
  /** The address after its prefecture, folded; a company's cityName is looked for at its start. */
  addressRest?: string;
  /** The address names a prefecture, so what follows it names the city (else a city may be missing). */
  addressHasPrefecture?: boolean;
  phone?: string;
  host?: string;
  /** Only a number with a correct check digit is evidence. */
  corporateNumber?: string;
}

const generic = new Set(
  (
    JSON.parse(readFileSync(path.join(projectRoot, 'data', 'names', 'generic-names.json'), 'utf8')) as {
      names: string[];
    }
  ).names.map((name) => nameKey(name)),
);

/** A key that names no one company: empty (株式会社 alone) or a generic word (data/names/generic-names.json). */
export function isUnmatchableKey(key: string): boolean {
  return key === '' || generic.has(key);
}

/**
 * A corporate number as lists write it: full-width digits, hyphens, spaces or dots between the
 * digits, the invoice register's T before it; the number when 13 digits with a correct check
 * digit are left, else undefined.
 *   '1234-5678-9012-3', '１２３４ ５６７８ ９０１２ ３', 'T1234567890123' -> '1234567890123' (if valid)
 */
export function corporateNumberOf(text: string): string | undefined {
  const digits = text
    .normalize('NFKC')
    .trim()
    .replace(/^t(?=\s*\d)/i, '')
    .replace(/[\s\-‐‑–—−.]/gu, '');
  return isValidCorporateNumber(digits) ? digits : undefined;
}

export function evidenceOf(record: MatchRecord): Evidence {
  const named = nameKeyAndForms(record.name);
  const keys = queryKeys(record.name, named.key);
  const prefectures = new Set<number>();
  if (record.prefectureId !== undefined) prefectures.add(record.prefectureId);
  let addressRest: string | undefined;
  let addressHasPrefecture = false;
  if (record.address !== undefined) {
    const parsed = parseAddress(record.address);
    if (parsed.prefectureId !== undefined) prefectures.add(parsed.prefectureId);
    addressHasPrefecture = parsed.prefectureId !== undefined;
    if (parsed.rest !== '') addressRest = parsed.rest;
  }
  const phone = record.phoneNumber === undefined ? undefined : phoneDigits(record.phoneNumber);
  const host = record.websiteUrl === undefined ? undefined : websiteHost(record.websiteUrl);
  const number = record.corporateNumber === undefined ? undefined : corporateNumberOf(record.corporateNumber);
  return {
    keys: { ...keys, spoken: spokenKey(record.name) },
    legalForms: named.forms,
    unmatchable: isUnmatchableKey(keys.name),
    prefectures: [...prefectures],
    ...(addressRest !== undefined ? { addressRest, addressHasPrefecture } : {}),
    ...(phone && phone.length >= 6 ? { phone } : {}),
    ...(host ? { host } : {}),
    ...(number ? { corporateNumber: number } : {}),
  };
}

/** Kana and kanji both in a name key (its kana are folded to hiragana): トウヨウ物産, 東洋ぶっさん. */
const kana = /[\u3041-\u3096]/u;
const kanji = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;

/** Whether a record's name is written partly in kana, partly in kanji, with no reading of its own. */
export function wantsDerivedReading(evidence: Evidence): boolean {
  const { name, reading, romaji } = evidence.keys;
  return (
    !evidence.unmatchable &&
    reading === undefined &&
    romaji === undefined &&
    kana.test(name) &&
    kanji.test(name)
  );
}

/**
 * A name written partly in its reading (トウヨウ物産 for 東洋物産) is looked up by the reading the
 * analyser (src/names/reading.ts) gives the whole name too, as the index derives one for a
 * company without furigana: トウヨウブッサン, equal to 東洋物産's reading key. Names of one script
 * are left as they are: kana have their own reading, and a kanji name is compared as written.
 */
export function withDerivedReading(evidence: Evidence, name: string, analyser: ReadingAnalyser): Evidence {
  if (!wantsDerivedReading(evidence)) return evidence;
  const derived = analyser.reading(name);
  const key = derived === undefined ? '' : readingKey(derived);
  return key === ''
    ? evidence
    : { ...evidence, keys: { ...evidence.keys, reading: key }, readingDerived: true };
}
