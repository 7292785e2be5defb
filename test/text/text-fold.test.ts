/**
 * One text fold on both sides, checked on the real engine. The expected values come from
 * Node's own Unicode data (test/support/unicode-fold.ts: NFKC, case, Default_Ignorable_Code_Point),
 * not from the product's table.
 *
 * Query text is folded by the same analyzer as indexed text (the mapping gives no text field
 * a separate search analyzer: checked below), so "the query side's fold" is the engine's
 * analysis of the field; the searches at the end go through the API's search code.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexName } from '../../src/opensearch/indices.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { foldText } from '../../src/text/normalize.js';
import { corporate, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { fcSeed, replayHint } from '../support/fast-check.js';
import { readFoldTable } from '../support/fold-table.js';
import { unicodeFold as expectedFold } from '../support/unicode-fold.js';

const separator = '\n';
let services: Services;

/**
 * The engine's fold of each text, through the `substring` analyzer of a real index field.
 * The texts go in one `_analyze` call per batch, joined by a separator that no rule reads or
 * writes; the 1-gram tokens, in order, spell the folded text.
 */
async function engineFolds(texts: string[], field = 'name.substring'): Promise<string[]> {
  const index = indexName(services.config.indexPrefix, 'corporates');
  const out: string[] = [];
  let start = 0;
  while (start < texts.length) {
    // keep each call under the engine's 10,000-token limit of _analyze (1- and 2-grams)
    let end = start;
    let chars = 0;
    while (end < texts.length && chars < 2000) {
      chars += (texts[end] as string).length * 3 + 1;
      end += 1;
    }
    const batch = texts.slice(start, end);
    const { body } = await services.opensearch.indices.analyze({
      index,
      body: { field, text: batch.join(separator) },
    });
    const grams = (body.tokens ?? []).map((token) => token.token).filter((token) => [...token].length === 1);
    const folded = grams.join('').split(separator);
    expect(folded).toHaveLength(batch.length);
    out.push(...folded);
    start = end;
  }
  return out;
}

function differences(inputs: string[], actual: string[]): string[] {
  const found: string[] = [];
  inputs.forEach((input, i) => {
    const expected = expectedFold(input);
    if (actual[i] !== expected) {
      const hex = [...input].map((ch) => `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase()}`);
      found.push(
        `${hex.join(' ')} ${JSON.stringify(input)}: engine ${JSON.stringify(actual[i])}, expected ${JSON.stringify(expected)}`,
      );
    }
  });
  return found;
}

const assigned = (ch: string) => !/^[\p{Cn}\p{Cs}]$/u.test(ch);

function codePoints(from: number, to: number): string[] {
  const out: string[] = [];
  for (let cp = from; cp <= to; cp++) {
    const ch = String.fromCodePoint(cp);
    if (assigned(ch) && ch !== separator) out.push(ch);
  }
  return out;
}

beforeAll(async () => {
  services = await setUpServices('text-fold');
});
afterAll(async () => {
  await services?.close();
});

describe('the fold on the real engine, character by character', () => {
  it('every text field is queried with the analyzer that indexed it', async () => {
    const { body } = await services.opensearch.indices.getMapping({
      index: `${services.config.indexPrefix}*`,
    });
    const analyzers: string[] = [];
    const grams: string[] = [];
    const walk = (node: unknown, name: string) => {
      if (!node || typeof node !== 'object') return;
      const field = node as Record<string, unknown>;
      if (field.type === 'text' && field.index !== false) {
        // the name keys' grams are folded before they are stored (src/names/keys.ts): key_grams
        if (field.analyzer === 'key_grams') grams.push(name);
        else analyzers.push(String(field.analyzer));
        expect(field.search_analyzer ?? field.analyzer).toBe(field.analyzer);
      }
      for (const [key, value] of Object.entries(field))
        walk(value, key === 'fields' ? name : key === 'grams' ? `${name}.grams` : key);
    };
    walk(body, '');
    expect(analyzers.length).toBeGreaterThan(10);
    expect(new Set(analyzers)).toEqual(new Set(['substring']));
    expect(new Set(grams)).toEqual(
      new Set(['nameKey.grams', 'spokenKey.grams', 'readingKey.grams', 'romajiKey.grams']),
    );
  });

  it('folds every assigned BMP code point as Unicode says (NFKC, case, ignorables): zero differences', async () => {
    const bmp = codePoints(0, 0xffff);
    const nfkcChanged = bmp.filter((ch) => ch.normalize('NFKC') !== ch);
    // the characters NFKC changes are all in, not only those the table happens to list
    expect(nfkcChanged.length).toBeGreaterThan(2900);
    const actual = await engineFolds(bmp);
    expect(differences(bmp, actual)).toEqual([]);
    expect(actual.filter((folded, i) => folded !== bmp[i]).length).toBeGreaterThan(4000);
  }, 300_000);

  it('folds the supplementary planes too: every code point that folds, and a sample of the rest', async () => {
    const all = codePoints(0x10000, 0x10ffff);
    const folding = all.filter((ch) => expectedFold(ch) !== ch);
    const rest = all.filter((ch, i) => i % 97 === 0 && expectedFold(ch) === ch);
    expect(folding.length).toBeGreaterThan(2000);
    const inputs = [...folding, ...rest];
    expect(differences(inputs, await engineFolds(inputs))).toEqual([]);
  }, 300_000);

  it('composes a base and a mark as NFKC does, for every two-character rule (ｶﾞ, e + U+0301, か + U+3099)', async () => {
    const analysis = JSON.parse(
      readFileSync(new URL('../../mappings/analysis.json', import.meta.url), 'utf8'),
    ) as {
      analysis: { char_filter: { text_fold: { mappings: string[] } } };
    };
    const pairs = analysis.analysis.char_filter.text_fold.mappings
      .map((rule) => rule.slice(0, rule.indexOf('=>')))
      .map((side) =>
        side.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      )
      .filter((from) => [...from].length === 2);
    expect(pairs).toEqual(expect.arrayContaining(['ｶﾞ', 'e\u0301', 'か\u3099', 'ﾊﾟ']));
    expect(differences(pairs, await engineFolds(pairs))).toEqual([]);
  }, 300_000);

  it("folds as the table from Python's Unicode data says (test/fixtures/text-fold/fold-table.tsv)", async () => {
    // independent of Node's ICU, which the rules and the tests' own fold both come from
    const { rows } = readFoldTable();
    const usable = rows.filter((row) => !row.input.includes(separator));
    const actual = await engineFolds(usable.map((row) => row.input));
    const wrong = usable
      .map((row, i) => ({ row, engine: actual[i] }))
      .filter(({ row, engine }) => engine !== row.expected)
      .map(
        ({ row, engine }) =>
          `${row.className} ${row.shown}: engine ${JSON.stringify(engine)}, table ${JSON.stringify(row.expected)}`,
      );
    expect(usable.length).toBeGreaterThan(4000);
    expect(wrong).toEqual([]);
  }, 300_000);

  it('the code fold (src/text/normalize.ts) agrees with the engine on mixed text', async () => {
    const alphabet = fc.constantFrom(
      ...[
        ...'㈱（株）(株)①Ⅲⅲａｂｃ ＡＢＣｶﾞｷﾞｸﾟﾊﾟかがカ゛゙ﾞﾟe\u0301\u0323\u00a0\u3000\u00ad\u200b葛\u{e0100}ΣσςßẞİıﬁÅÅ㎡™株式会社',
      ],
      '\u{1d400}',
      '\u{1f100}',
    );
    const texts = fc.sample(
      fc.array(alphabet, { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')),
      {
        numRuns: 300,
        seed: fcSeed,
      },
    );
    const actual = await engineFolds(texts);
    expect(
      texts.filter((text, i) => foldText(text) !== actual[i]),
      replayHint(fcSeed),
    ).toEqual([]);
  });
});

describe('searches find each spelling of the same text', () => {
  const kabu = corporate({
    name: '㈱マルカブ商店',
    cityName: '①丁目市',
    streetAddress: '本町Ⅲ－４ ㈱ビル',
    postings: [
      posting({
        title: '㈱営業職 ①班 Ⅲ期',
        description: '当社（㈱マルカブ）の①号店でⅢ期生を募集',
        descriptionCollectedAt: daysAgo(3),
      }),
    ],
  });
  const other = corporate({ name: '株式会社マルカブ', cityName: '一丁目市', streetAddress: '本町3-4' });
  const kabuJob = job({
    corporateNumber: kabu.corporateNumber,
    corporateName: '㈱マルカブ商店',
    title: '㈱営業職 ①班 Ⅲ期',
    description: '当社（㈱マルカブ）の①号店でⅲ期生を募集',
    descriptionCollectedAt: daysAgo(3),
  });
  const otherJob = job({ title: '営業職 一班 3期', description: '株式会社マルカブの1号店で3期生を募集' });

  beforeAll(async () => {
    await indexFixture(services.opensearch, services.config.indexPrefix, {
      corporates: [kabu, other],
      jobs: [kabuJob, otherJob],
    });
  });

  async function companies(field: string, text: string): Promise<string[]> {
    const { results } = await searchCorporates(services, { limit: 10, [field]: [text] });
    return results.map((record) => String(record.name)).sort();
  }

  async function jobs(field: string, text: string): Promise<string[]> {
    const { results } = await searchJobs(services, { limit: 10, [field]: [text] });
    return results.map((record) => String(record.title)).sort();
  }

  const spellings: [string, string[]][] = [
    ['㈱', ['㈱', '(株)', '（株）']],
    ['①', ['①']],
    ['Ⅲ', ['Ⅲ', 'ⅲ', 'III', 'iii']],
  ];

  it.each(spellings)('%s in company names, addresses and posting titles and text', async (_, queries) => {
    for (const query of queries) {
      const where = (field: string) => `${field} ${query}`;
      if (_ === '㈱') {
        expect(await companies('corporateNamePartialMatchOr', query), where('name')).toEqual([
          '㈱マルカブ商店',
        ]);
        expect(await companies('streetAddressPartialMatchOr', query), where('street')).toEqual([
          '㈱マルカブ商店',
        ]);
      }
      if (_ === '①')
        expect(await companies('cityNamePartialMatchOr', query), where('city')).toEqual(['㈱マルカブ商店']);
      if (_ === 'Ⅲ')
        expect(await companies('streetAddressPartialMatchOr', query), where('street')).toEqual([
          '㈱マルカブ商店',
        ]);
      expect(await companies('jobTitlePartialMatchOr', query), where('posting title')).toEqual([
        '㈱マルカブ商店',
      ]);
      expect(await companies('jobDescriptionPartialMatchOr', query), where('posting text')).toEqual([
        '㈱マルカブ商店',
      ]);
      expect(await jobs('jobTitlePartialMatchOr', query), where('job title')).toEqual(['㈱営業職 ①班 Ⅲ期']);
      expect(await jobs('jobDescriptionPartialMatchOr', query), where('job text')).toEqual([
        '㈱営業職 ①班 Ⅲ期',
      ]);
      if (_ === '㈱')
        expect(await jobs('corporateNamePartialMatchOr', query), where('job company name')).toEqual([
          '㈱営業職 ①班 Ⅲ期',
        ]);
    }
  });

  it('(株) and ㈱ do not find 株式会社: the legal form is matched as written', async () => {
    expect(await companies('corporateNamePartialMatchOr', '(株)')).toEqual(['㈱マルカブ商店']);
    expect(await companies('corporateNamePartialMatchOr', '株式会社')).toEqual(['株式会社マルカブ']);
  });

  it('highlights keep the original text', async () => {
    const { results } = await searchJobs(services, {
      jobTitleOr: ['㈱営業職 ①班 Ⅲ期'],
      jobDescriptionPartialMatchOr: ['(株)', 'III'],
    });
    const snippets = results[0]?.descriptionSnippets as string[];
    expect(snippets.join(' ')).toContain('<mark>㈱</mark>');
    expect(snippets.join(' ')).toMatch(/<mark>ⅲ<\/mark>/);
  });
});
