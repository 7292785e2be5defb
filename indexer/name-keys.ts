/**
 * The name keys of a company document (internal fields, never in API records): what
 * `POST /corporates/match` and `GET /corporates/suggest` compare on, computed with the one
 * definition of "the same name" (src/names/keys.ts).
 *
 *   {name: '株式会社マルカ物流', furigana: 'マルカブツリュウ'}
 *   -> {nameKey: 'マルカ物流' folded, readingKey: 'マルカブツリュウ' folded,
 *       romajiKey: its romaji ('' today -> null), readingSource: 'registry', nameKeyLength: 5}
 *
 * An empty key is stored as null (docs/index-documents.md: never "" for "unknown").
 */
import { nameKey, readingKey, romajiKey, spokenKey } from '../src/names/keys.js';
import { loadReadingAnalyser, type ReadingAnalyser } from '../src/names/reading.js';
import { phoneDigits, websiteHost } from '../src/text/address.js';

export type ReadingSource = 'registry' | 'derived';

/** The fields nameKeyFields writes, for writers that copy them (the registry import). */
export const nameKeyFieldNames = [
  'nameKey',
  'spokenKey',
  'readingKey',
  'romajiKey',
  'readingSource',
  'nameKeyLength',
] as const;

export interface NameKeyFields {
  nameKey: string | null;
  /** The name as it is said (letters, loanwords and symbols in kana): src/names/keys.ts spokenKey. */
  spokenKey: string | null;
  readingKey: string | null;
  romajiKey: string | null;
  /** Where the reading came from: the source's furigana, or derived from the name; null: none. */
  readingSource: ReadingSource | null;
  /** Characters in `nameKey`: suggest lists shorter names first. */
  nameKeyLength: number | null;
}

let analyser: ReadingAnalyser | undefined;

/**
 * Loads the reading analyser (src/names/reading.ts: about a second and 18 MB of dictionary,
 * once per process) so that derivedReading answers; the pipeline and the backfill call it
 * before they plan a batch.
 */
export async function prepareDerivedReadings(): Promise<void> {
  analyser ??= await loadReadingAnalyser();
}

/**
 * The reading of a name that has no furigana in the source, derived from the name by the
 * analyser and stored with `readingSource: 'derived'`: a dictionary's guess (日本 is read ニホン),
 * so a match on it is only as good as that guess (docs/names.md). null before
 * prepareDerivedReadings, and for a name with a word the dictionary cannot read.
 *
 *   derivedReading('マルカ物流株式会社') === 'マルカブツリュウカブシキガイシャ'
 */
export function derivedReading(name: string): string | null {
  return analyser?.reading(name) ?? null;
}

function orNull(key: string): string | null {
  return key === '' ? null : key;
}

export function nameKeyFields(name: string, furigana: string | null | undefined): NameKeyFields {
  const key = orNull(nameKey(name));
  const registry = furigana || null;
  const reading = registry ?? derivedReading(name);
  const readingSource: ReadingSource | null = registry ? 'registry' : reading ? 'derived' : null;
  const folded = reading ? orNull(readingKey(reading)) : null;
  return {
    nameKey: key,
    spokenKey: orNull(spokenKey(name)),
    readingKey: folded,
    romajiKey: reading ? orNull(romajiKey(reading)) : null,
    readingSource: folded ? readingSource : null,
    nameKeyLength: key === null ? null : [...key].length,
  };
}

/** The evidence keys of a company: what match compares a record's phone and website with. */
export interface EvidenceKeyFields {
  /** The phone number's digits (+81 as 0), at least 6 of them; null: none. */
  phoneKey: string | null;
  /** The website's host, lower case, without www.; null: none. */
  websiteHost: string | null;
}

/** The fields evidenceKeyFields writes (the postings pipeline's; the registry has no phone). */
export const evidenceKeyFieldNames = ['phoneKey', 'websiteHost'] as const;

/**
 *   evidenceKeyFields('03-1234-5678', 'https://www.maruka.example/') -> {phoneKey: '0312345678', websiteHost: 'maruka.example'}
 */
export function evidenceKeyFields(
  phoneNumber: string | null | undefined,
  websiteUrl: string | null | undefined,
): EvidenceKeyFields {
  const digits = phoneNumber ? phoneDigits(phoneNumber) : '';
  return {
    phoneKey: digits.length >= 6 ? digits : null,
    websiteHost: (websiteUrl && websiteHost(websiteUrl)) || null,
  };
}
