/**
 * The match card: what matching reads of a company, in one binary doc value (`matchCard`),
 * written beside the company's compact record copy by every writer of its record fields.
 *
 *   toMatchCard({corporateNumber: '1010001000001', name: '株式会社マルカ物流', furigana: 'マルカブツリュウ',
 *                prefectureId: 14, cityName: '厚木市', phoneNumber: '046-123-4567', websiteUrl: null,
 *                nameKey: 'マルカ物流', spokenKey: 'マルカ物流', readingKey: 'マルカブツリュウ', romajiKey: 'marukabutsuryu'})
 *   // base64 of '["c1","1010001000001","株式会社マルカ物流","マルカブツリュウ",14,"厚木市","0461234567",null,...]'
 *
 * Why one field: the key lookups of a request of 1,000 records fetch 30,000-45,000 namesakes
 * at 1,000,000 companies, and the engine read the thirteen keyword and number doc values of
 * each hit one by one, the long keyword ones (name, reading, the keys) each costing as much as
 * the search: 5.6 s of engine time per request against 0.4 s for one doc value
 * (docs/names.md, "At 1,000,000 companies"). The former name keys and the register's closed
 * flag are fetched beside the card: the register's import writes them on its own.
 *
 * A company written before the card, or whose card a writer removed (a feed record whose
 * register-owned fields went stale: indexer/batch-plan.ts), has none: matching reads its
 * fields one by one (src/names/lookup.ts), and `npm run backfill` gives it one.
 */
import { phoneDigits, websiteHost } from '../text/address.js';

/** The match card's field in the corporates index (mappings/corporates.json). */
export const matchCardField = 'matchCard';

/** The company fields a card is made of: its record's, then its name keys. */
export const cardRecordFields = [
  'corporateNumber',
  'name',
  'furigana',
  'prefectureId',
  'cityName',
  'phoneNumber',
  'websiteUrl',
] as const;
export const cardKeyFields = ['nameKey', 'spokenKey', 'readingKey', 'romajiKey'] as const;

/** The card's layout, first in it: a card of another layout is read field by field instead. */
const layout = 'c1';

export interface Company {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
  phone: string | undefined;
  host: string | undefined;
  keys: { name?: string; spoken?: string; reading?: string; romaji?: string; former: string[] };
  /** Closed in the register: never a match unless the record gives its corporate number. */
  closed: boolean;
}

type Doc = Record<string, unknown>;

/** A card's values in their places (toMatchCard). */
type CardValues = [
  typeof layout,
  string,
  string,
  string | null,
  number | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
];

const textOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The card of a company document (its record fields and name keys); base64, as binary fields take it. */
export function toMatchCard(doc: Doc): string {
  const phone = textOf(doc.phoneNumber);
  const website = textOf(doc.websiteUrl);
  const card = [
    layout,
    String(doc.corporateNumber ?? ''),
    typeof doc.name === 'string' ? doc.name : '',
    textOf(doc.furigana),
    typeof doc.prefectureId === 'number' ? doc.prefectureId : null,
    textOf(doc.cityName),
    phone ? phoneDigits(phone) : null,
    (website && websiteHost(website)) || null,
    textOf(doc.nameKey),
    textOf(doc.spokenKey),
    textOf(doc.readingKey),
    textOf(doc.romajiKey),
  ];
  return Buffer.from(JSON.stringify(card), 'utf8').toString('base64');
}

/**
 * A company's name keys, the ones it has set one by one in one order: a request of 1,000
 * records reads 100,000s of companies, and objects spread together take many shapes, which
 * made building them and reading them in the judge twice as slow (docs/names.md).
 */
export function companyKeys(
  former: string[],
  name: string | null | undefined,
  spoken: string | null | undefined,
  reading: string | null | undefined,
  romaji: string | null | undefined,
): Company['keys'] {
  const keys: Company['keys'] = { former };
  if (name) keys.name = name;
  if (spoken) keys.spoken = spoken;
  if (reading) keys.reading = reading;
  if (romaji) keys.romaji = romaji;
  return keys;
}

/**
 * Where a card's bytes are decoded: one buffer the process reuses, not one per card (a request
 * reads 100,000s). It grows to the longest card met, up to `scratchMost` bytes; a card longer
 * than that (none of the register's comes near) is decoded on its own.
 */
let scratch = Buffer.allocUnsafe(4096);
const scratchMost = 65_536;

/** A card's JSON text, from its base64. */
function cardText(card: string): string {
  // base64 holds 3 bytes in 4 characters: a card longer than the buffer gets a larger one
  const most = Math.ceil((card.length * 3) / 4);
  if (most > scratchMost) return Buffer.from(card, 'base64').toString('utf8');
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.min(2 * most, scratchMost));
  const length = scratch.write(card, 0, 'base64');
  return scratch.toString('utf8', 0, length);
}

/**
 * The company a card describes, with the former name keys and closed flag fetched beside it;
 * undefined for a card of another layout (or not a card at all).
 */
export function companyOfCard(card: string, former: string[], closed: boolean): Company | undefined {
  let values: unknown;
  try {
    values = JSON.parse(cardText(card));
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values[0] !== layout || values.length !== 12) return undefined;
  // read by position (a destructuring rest would copy the keys into an array per company)
  const read = values as CardValues;
  return {
    corporateNumber: read[1],
    name: read[2],
    furigana: read[3],
    prefectureId: read[4],
    cityName: read[5],
    phone: read[6] ?? undefined,
    host: read[7] ?? undefined,
    keys: companyKeys(former, read[8], read[9], read[10], read[11]),
    closed,
  };
}
