/**
 * The parts of matching (POST /corporates/match) that need no engine: what a record says once
 * folded (src/names/evidence.ts: its keys, legal forms, prefectures, city, phone, website and
 * corporate number), the keys it is looked up by (src/names/lookup.ts) and the matches a
 * `maxCredits` pays for (applyBudget, src/names/match.ts). Expected values written from
 * docs/api.md and docs/names.md.
 */
import { describe, expect, it } from 'vitest';
import { companyOfCard, toMatchCard } from '../../src/names/card.js';
import { corporateNumberOf, evidenceOf, isUnmatchableKey } from '../../src/names/evidence.js';
import { nameKey } from '../../src/names/keys.js';
import {
  type Company,
  decodedBefore,
  decodedNone,
  type Found,
  foundUnder,
  gramKeyLength,
  gramQueries,
  gramQuery,
  keepDecoded,
  keyId,
  lookupValues,
} from '../../src/names/lookup.js';
import { applyBudget, type Candidate, type MatchResult } from '../../src/names/match.js';

// 国税庁's corporate number
const nta = '7000012050002';

describe('a corporate number as lists write it', () => {
  it('digits with hyphens, dashes, dots or spaces between, full-width, the invoice T before', () => {
    for (const written of [
      nta,
      '7000-0120-5000-2',
      '7000‐0120‑5000–2',
      '7000—0120−5000 2',
      '7000.0120.5000.2',
      '７０００ ０１２０ ５０００ ２',
      '７０００－０１２０－５０００－２',
      'T7000012050002',
      't7000012050002',
      'T 7000-0120-5000-2',
      'Ｔ７００００１２０５０００２',
      ' T7000012050002 ',
    ])
      expect(corporateNumberOf(written), written).toBe(nta);
  });

  it('nothing when the check digit is wrong, a digit is missing, or a letter is inside', () => {
    for (const written of [
      '7000012050003',
      '700001205000',
      '70000120500021',
      'X7000012050002',
      '7000t012050002',
      'Tokyo',
    ])
      expect(corporateNumberOf(written), written).toBeUndefined();
  });
});

describe('what a record says', () => {
  it('every field: keys, legal forms, prefecture, the address after it, phone, host, number', () => {
    expect(
      evidenceOf({
        name: '㈱ABCテクノロジーズ 厚木工場',
        prefectureId: 14,
        address: '神奈川県厚木市中町1-1',
        phoneNumber: '046-111-2222',
        websiteUrl: 'https://www.abc.example.jp/about',
        corporateNumber: 'T7000-0120-5000-2',
      }),
    ).toEqual({
      keys: { name: 'abcてくのろじず', spoken: 'えびしてくのろじず' },
      legalForms: ['株式会社'],
      unmatchable: false,
      prefectures: [14],
      addressRest: '厚木市中町1-1',
      addressHasPrefecture: true,
      phone: '0461112222',
      host: 'abc.example.jp',
      corporateNumber: nta,
    });
  });

  it('a name alone: its keys, and no evidence', () => {
    expect(evidenceOf({ name: 'ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶ' })).toEqual({
      keys: { name: 'まるか', reading: 'まるか', spoken: 'まるか' },
      legalForms: ['株式会社'],
      unmatchable: false,
      prefectures: [],
    });
  });

  it('the prefectures of the field and the address, each once', () => {
    expect(evidenceOf({ name: 'マルカ', prefectureId: 14, address: '神奈川県厚木市' }).prefectures).toEqual([
      14,
    ]);
    expect(evidenceOf({ name: 'マルカ', prefectureId: 13, address: '神奈川県厚木市' }).prefectures).toEqual([
      13, 14,
    ]);
    expect(evidenceOf({ name: 'マルカ', address: '神奈川県厚木市' }).prefectures).toEqual([14]);
  });

  it('an address without a prefecture may not name a city; a prefecture alone leaves nothing after it', () => {
    expect(evidenceOf({ name: 'マルカ', address: '厚木市中町' })).toMatchObject({
      prefectures: [],
      addressRest: '厚木市中町',
      addressHasPrefecture: false,
    });
    const prefectureOnly = evidenceOf({ name: 'マルカ', address: '神奈川県' });
    expect(prefectureOnly.prefectures).toEqual([14]);
    expect(prefectureOnly).not.toHaveProperty('addressRest');
    expect(prefectureOnly).not.toHaveProperty('addressHasPrefecture');
  });

  it('a phone of fewer than 6 digits, an empty website, an invalid number are no evidence', () => {
    expect(evidenceOf({ name: 'マルカ', phoneNumber: '12345' })).not.toHaveProperty('phone');
    expect(evidenceOf({ name: 'マルカ', phoneNumber: '123-456' }).phone).toBe('123456');
    expect(evidenceOf({ name: 'マルカ', websiteUrl: '' })).not.toHaveProperty('host');
    expect(evidenceOf({ name: 'マルカ', corporateNumber: '7000012050003' })).not.toHaveProperty(
      'corporateNumber',
    );
  });

  it('a legal form alone or a generic word names no one company', () => {
    expect(evidenceOf({ name: '株式会社' }).unmatchable).toBe(true);
    expect(evidenceOf({ name: '物流' }).unmatchable).toBe(true);
    expect(evidenceOf({ name: '株式会社 物流' }).unmatchable).toBe(true);
    expect(evidenceOf({ name: 'マルカ物流' }).unmatchable).toBe(false);
    expect(isUnmatchableKey('')).toBe(true);
    expect(isUnmatchableKey(nameKey('ホールディングス'))).toBe(true);
    expect(isUnmatchableKey(nameKey('マルカ物流'))).toBe(false);
  });
});

describe('the keys a record is looked up by', () => {
  it('the evidence keys first, then each name key it has (the name key again for former names)', () => {
    const evidence = evidenceOf({
      name: 'ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶ',
      phoneNumber: '046-111-2222',
      websiteUrl: 'maruka.example.jp',
      corporateNumber: nta,
    });
    expect(lookupValues(evidence)).toEqual([
      ['corporateNumber', nta],
      ['phoneKey', '0461112222'],
      ['websiteHost', 'maruka.example.jp'],
      ['nameKey', 'まるか'],
      ['spokenKey', 'まるか'],
      ['readingKey', 'まるか'],
      ['formerNameKeys', 'まるか'],
    ]);
    expect(lookupValues(evidenceOf({ name: 'Maruka' }))).toEqual([
      ['nameKey', 'maruka'],
      ['spokenKey', 'えむえあるゆけ'],
      ['romajiKey', 'maruka'],
      ['formerNameKeys', 'maruka'],
    ]);
  });

  it('a name that names no one company: only its evidence is looked up', () => {
    expect(lookupValues(evidenceOf({ name: '株式会社', corporateNumber: nta }))).toEqual([
      ['corporateNumber', nta],
    ]);
    expect(lookupValues(evidenceOf({ name: '物流' }))).toEqual([]);
  });

  it('the companies found under a key are those filed under that field and value only', () => {
    const maruka = { corporateNumber: nta, name: 'マルカ株式会社' } as Company;
    const found: Found = {
      byKey: new Map([[keyId('nameKey', 'まるか'), [maruka]]]),
      incompleteKeys: new Set(),
    };
    expect(foundUnder(found, 'nameKey', 'まるか')).toEqual([maruka]);
    expect(foundUnder(found, 'spokenKey', 'まるか')).toEqual([]);
    expect(foundUnder(found, 'nameKey', 'まるか物流')).toEqual([]);
    expect(foundUnder(found, 'nameKey', undefined)).toEqual([]);
    expect(foundUnder(found, 'nameKey', '')).toEqual([]);
  });
});

describe('the similar-name query of a key (gramQuery)', () => {
  const termsOf = (query: object) =>
    (query as { bool: { should: Array<{ term: Record<string, string> }> } }).bool.should.map(
      ({ term }) => term['nameKey.grams'],
    );

  it('a key of 9 characters or more: its 3-character grams, each once, 35 % of them needed', () => {
    const query = gramQuery('nameKey.grams', 'まるかまるかまるか');
    expect(termsOf(query)).toEqual(['まるか', 'るかま', 'かまる']);
    expect((query as { bool: { minimum_should_match: string } }).bool.minimum_should_match).toBe('35%');
    // characters outside the BMP count as one
    expect(termsOf(gramQuery('nameKey.grams', '𠮷野家𠮷野家𠮷野家'))).toEqual(['𠮷野家', '野家𠮷', '家𠮷野']);
  });

  it('a shorter key: its 2- and 3-character grams, through the field analyzer', () => {
    expect(gramQuery('nameKey.grams', 'まるか物流')).toEqual({
      match: { 'nameKey.grams': { query: 'まるか物流', minimum_should_match: '35%' } },
    });
    expect(gramQuery('romajiKey.grams', 'marukabu')).toHaveProperty('match');
  });

  it('only the head of a long key: its first gramKeyLength characters', () => {
    const key = 'あいうえおかきくけこさしすせそたちつてとなにぬねの';
    const terms = termsOf(gramQuery('nameKey.grams', key));
    expect(terms).toHaveLength(gramKeyLength - 2);
    expect(terms.at(-1)).toBe([...key].slice(gramKeyLength - 3, gramKeyLength).join(''));
  });
});

describe('the similar-name queries of a record (gramQueries)', () => {
  // the field each query asks (a `match` on it, or a `bool` of `term`s on it)
  const fields = (queries: object[]) =>
    queries.map((query) => /"(\w+\.grams)"/.exec(JSON.stringify(query))?.[1]);

  it('one per key: the name, the spoken name when it differs, a reading typed as kana, the romaji', () => {
    // kana alone: the name is its reading, asked of the readings (a company named in kana has
    // its name as its reading); the spoken key (long vowels folded) differs
    expect(fields(gramQueries(evidenceOf({ name: 'サクラセイキ株式会社' })))).toEqual([
      'spokenKey.grams',
      'readingKey.grams',
    ]);
    // kana and kanji: the name as written
    expect(fields(gramQueries(evidenceOf({ name: 'サクラ精機' })))).toEqual(['nameKey.grams']);
    expect(fields(gramQueries(evidenceOf({ name: 'NOVA Systems' })))).toContain('romajiKey.grams');
  });

  it('no reading grams for a reading derived from a name of kana and kanji; the key is still looked up', () => {
    const typed = evidenceOf({ name: 'トウヨウ物産' });
    const derived = { ...typed, keys: { ...typed.keys, reading: 'とうようぶつさん' }, readingDerived: true };
    expect(fields(gramQueries(derived))).toEqual(['nameKey.grams', 'spokenKey.grams']);
    expect(lookupValues(derived)).toContainEqual(['readingKey', 'とうようぶつさん']);
    // the same reading typed as kana keeps its grams
    expect(fields(gramQueries({ ...derived, readingDerived: false }))).toContain('readingKey.grams');
  });
});

describe('the matches maxCredits pays for', () => {
  const candidate = (corporateNumber: string) => ({ corporateNumber, name: corporateNumber }) as Candidate;
  /** Six records: matches at 0, 3 and 5, candidates only at the others. */
  const results = (): MatchResult[] =>
    [true, false, false, true, false, true].map((matched, at) => ({
      match: matched ? candidate(`m${at}`) : null,
      candidates: [candidate(`m${at}`)],
      overMaxCredits: false,
    }));
  const withheld = (list: MatchResult[]) => list.map((result) => result.overMaxCredits);

  it('the matches in input order until the credits run out; the rest withheld, candidates too', () => {
    const list = results();
    expect(applyBudget(list, 1, 2)).toBe(2);
    expect(withheld(list)).toEqual([false, false, false, false, false, true]);
    expect(list[5]).toEqual({ match: null, candidates: [], overMaxCredits: true });
    expect(list[3]?.match?.corporateNumber).toBe('m3');
    // records without a match keep their candidates
    expect(list[4]?.candidates).toHaveLength(1);
  });

  it('a price of 2 and 5 credits pays for two matches; 0 credits for none', () => {
    const list = results();
    expect(applyBudget(list, 2, 5)).toBe(4);
    expect(withheld(list)).toEqual([false, false, false, false, false, true]);
    const none = results();
    expect(applyBudget(none, 1, 0)).toBe(0);
    expect(withheld(none)).toEqual([true, false, false, true, false, true]);
  });

  it('no maxCredits: every match, each charged; price 0: nothing charged or withheld', () => {
    const list = results();
    expect(applyBudget(list, 1, undefined)).toBe(3);
    expect(withheld(list)).toEqual([false, false, false, false, false, false]);
    const free = results();
    expect(applyBudget(free, 0, 0)).toBe(0);
    expect(withheld(free)).toEqual([false, false, false, false, false, false]);
    expect(free[0]?.match?.corporateNumber).toBe('m0');
  });
});

describe('the match card (src/names/card.ts)', () => {
  const doc = {
    corporateNumber: '1010001000001',
    name: '株式会社マルカ物流',
    furigana: 'マルカブツリュウ',
    prefectureId: 14,
    cityName: '厚木市',
    phoneNumber: '+81 46-123-4567',
    websiteUrl: 'https://www.maruka.example/about',
    nameKey: 'N',
    spokenKey: 'S',
    readingKey: 'R',
    romajiKey: 'M',
  };

  it('gives back each field in its place, with the former keys and closed flag read beside it', () => {
    expect(companyOfCard(toMatchCard(doc), ['F'], true)).toEqual({
      corporateNumber: '1010001000001',
      name: '株式会社マルカ物流',
      furigana: 'マルカブツリュウ',
      prefectureId: 14,
      cityName: '厚木市',
      phone: '0461234567',
      host: 'maruka.example',
      keys: { name: 'N', spoken: 'S', reading: 'R', romaji: 'M', former: ['F'] },
      closed: true,
    });
  });

  it('leaves out what a company lacks, as the field-by-field read does', () => {
    const bare = { corporateNumber: '1010001000002', name: '株式会社', furigana: '', nameKey: null };
    expect(companyOfCard(toMatchCard(bare), [], false)).toEqual({
      corporateNumber: '1010001000002',
      name: '株式会社',
      furigana: null,
      prefectureId: null,
      cityName: null,
      phone: undefined,
      host: undefined,
      keys: { former: [] },
      closed: false,
    });
  });

  it('reads each card whole, a long one after a short one and a short one after a long one', () => {
    // a name of 3,000 characters: its card (about 12 kB of base64) is larger than the buffer
    // cards are first decoded in
    const long = { ...doc, corporateNumber: '1010001000003', name: `株式会社${'長'.repeat(3000)}` };
    const short = { ...doc, corporateNumber: '1010001000004', name: '株式会社マ' };
    // past the largest buffer kept (64 kB): decoded on its own
    const longest = { ...doc, corporateNumber: '1010001000005', name: `株式会社${'長'.repeat(30_000)}` };
    for (const card of [short, long, short, long, longest, short, longest])
      expect(companyOfCard(toMatchCard(card), [], false)).toMatchObject({
        corporateNumber: card.corporateNumber,
        name: card.name,
        cityName: '厚木市',
      });
  });

  it('a card met again is the company read from it, even after another card of the same head', () => {
    // the same company written again between two searches of a request: two cards, one head
    const [a, b] = ['株式会社マルカ', '株式会社マルカ物流'].map((name) => toMatchCard({ ...doc, name }));
    const head = (a as string).slice(0, 28);
    expect((b as string).slice(0, 28)).toBe(head);
    const decoded = decodedNone();
    const read = (card: string) => {
      const known = decodedBefore(decoded, head, card);
      if (known) return known;
      const company = companyOfCard(card, [], false) as Company;
      keepDecoded(decoded, head, card, company);
      return company;
    };
    const first = read(a as string);
    const second = read(b as string);
    expect(second).not.toBe(first);
    expect(second.name).toBe('株式会社マルカ物流');
    expect(read(a as string)).toBe(first);
    expect(read(b as string)).toBe(second);
  });

  it('is not read in another layout, nor when it is not a card', () => {
    const other = Buffer.from(JSON.stringify(['c0', '1010001000001']), 'utf8').toString('base64');
    expect(companyOfCard(other, [], false)).toBeUndefined();
    expect(companyOfCard('not base64 JSON', [], false)).toBeUndefined();
  });
});
