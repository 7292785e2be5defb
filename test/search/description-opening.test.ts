/**
 * The opening excerpt written with each posting (`descriptionOpening`, src/search/opening.ts)
 * against the highlighter's answer for the same text on the real engine: the request job
 * searches sent before (`highlight` with `highlight_query: match_none`, `no_match_size: 160`).
 * Every excerpt the indexer writes must be the highlighter's, character for character; texts
 * whose excerpt is not certain get none (the search then asks the highlighter).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexNames } from '../../indexer/index-names.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { descriptionOpening, openingField, openingScanLimit } from '../../src/search/opening.js';
import { compileSnippetHighlight, toSnippets } from '../../src/search/snippets.js';
import { testOpenSearch, uniquePrefix } from '../support/env.js';

const client = testOpenSearch();
const prefix = uniquePrefix('opening');
const jobsIndex = indexNames(prefix).jobs;

const pad = (text: string, length: number, fill = 'あ') =>
  text + fill.repeat(Math.max(0, length - text.length));

/** Hand-picked texts: lengths around 160, escapes, whitespace, pairs, half-width kana. */
const tricky: string[] = [
  '',
  ' ',
  '\n\n',
  '短い',
  '  前後に空白と改行  \n',
  '\n\t先頭の改行\r\n',
  '<b>Java</b> & "C++" \'Go\' / Rust',
  'あ'.repeat(159),
  'あ'.repeat(160),
  'あ'.repeat(161),
  'あ'.repeat(300),
  `${'あ'.repeat(150)}${'漢'.repeat(30)}`,
  `${'漢'.repeat(158)}ひらがなカタカナ漢字`,
  `${'ア'.repeat(159)}、続き`,
  `${'ア'.repeat(160)}。続き`,
  `${'a'.repeat(158)}経験者歓迎`,
  `${'あ'.repeat(158)}Java Python`,
  `${'あ'.repeat(159)}😀😀😀続き`,
  `${'あ'.repeat(160)}😀続き`,
  `${'あ'.repeat(155)}ｴﾝｼﾞﾆｱ募集ｶﾀｶﾅ`,
  `${'あ'.repeat(156)}<>&"'/</>あいう`,
  `${'あ'.repeat(160)}   \n  次の行`,
  `${'あ'.repeat(160)}\r\n次の行`,
  `${'あ'.repeat(100)}${' '.repeat(80)}`,
  `${' '.repeat(170)}あ`,
  pad('エンジニア（正社員）募集！', 200, '歓迎'),
  pad('【急募】営業職／月給30万円〜', 200, '経験'),
  `${'あ'.repeat(159)}サーバー`,
  `${'あ'.repeat(161)}`.replace(/.$/, 'ー'),
  `${'あ'.repeat(150)}𠮷野家の店長候補`,
  `${'あ'.repeat(156)}マンツーマンで指導`,
  `${'漢'.repeat(157)}メンバーが活躍`,
  `${'あ'.repeat(155)}（Word・Excel）ができる方`,
  `${'あ'.repeat(158)}ーあーアー続き`,
  `${'ア'.repeat(159)}・・・あいう`,
  `${'漢'.repeat(159)}ー・ー・アあ`,
  `${'あ'.repeat(157)}1,850円〜、月給３０万円～`,
  // one word far past 160 (a doc value holds at most 32,766 bytes): left to the highlighter
  `${'漢'.repeat(20_000)}。続き`,
  `${'a'.repeat(1_100)} b`,
  `${'あ'.repeat(159)}ｶﾀｶﾅｰﾞﾟ ABC`,
  `${'あ'.repeat(158)}　全角空白\u00a0改行なし`,
  `${'あ'.repeat(158)}ゝヽゞヾヴヷヺゔ続き`,
  `${'あ'.repeat(150)}【給与】年収4,900,000円〜。経験`,
  `${'あ'.repeat(157)}3.14.15,9a`,
  `${'あ'.repeat(159)}1,,2`,
  `${'あ'.repeat(159)}2,500円〜`,
  `${'あ'.repeat(158)}2,500円〜`,
  `${'あ'.repeat(159)}12,円です`,
  `${'あ'.repeat(159)}12.あ`,
];

/** A seeded generator: texts mixing every class the excerpt rule names, around the cut. */
function generated(count: number): string[] {
  let seed = 20261126;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pieces = [
    '経験',
    '歓迎',
    '々',
    'あり',
    'です',
    'エンジニア',
    'サーバー',
    'Java',
    'AWS',
    '3年',
    '1,000',
    '30.5',
    ' ',
    '  ',
    '\n',
    '\r\n',
    '、',
    '。',
    '「',
    '」',
    '（',
    '）',
    '！',
    '・',
    '<',
    '>',
    '&',
    '"',
    "'",
    '/',
    '😀',
    '👍🏻',
    '𠮷',
    'ｶﾀｶﾅ',
    '－',
    '-',
    '※',
    '★',
    '\u3000',
    'é',
    'e\u0301',
    'マンツーマン',
    'メンバー',
    'ー',
    '・',
    'Word・Excel',
    '1,850円',
    '〜',
    '～',
    'ゝ',
    'ヽ',
    'ゞ',
    'ヾ',
    'ヴ',
    '〇',
    '\u00a0',
    'ｰﾞ',
    '２０代',
    '3.5万',
    'a-b',
    'C++',
    '#1',
    '10%',
    '4,900,000',
    ',',
    '.',
    '1',
  ];
  return Array.from({ length: count }, () => {
    const target = 120 + Math.floor(next() * 90);
    let text = '';
    while (text.length < target) text += pieces[Math.floor(next() * pieces.length)];
    return text;
  });
}

const texts = [...tricky, ...generated(1500)];

beforeAll(async () => {
  await bootstrapIndices(client, prefix);
  const body = texts.flatMap((description, i) => [
    { index: { _index: jobsIndex, _id: `j${i}` } },
    { id: `j${i}`, description, [openingField]: descriptionOpening(description) ?? null },
  ]);
  const response = await client.bulk({ body, refresh: true });
  expect(response.body.errors).toBe(false);
}, 60_000);

afterAll(async () => {
  await dropIndices(client, prefix);
});

/** Per document: the highlighter's snippets and the stored opening (undefined when none). */
async function bothAnswers(): Promise<Map<string, { highlighted: string[]; opening: string | undefined }>> {
  const { body } = await client.search({
    index: jobsIndex,
    body: {
      query: { match_all: {} },
      size: texts.length,
      _source: false,
      docvalue_fields: ['id', openingField],
      highlight: compileSnippetHighlight({ conditions: [], groups: [] }),
    } as never,
  });
  return new Map(
    body.hits.hits.map((hit) => [
      String(hit.fields?.id?.[0]),
      {
        highlighted: toSnippets(hit.highlight as Record<string, string[]> | undefined),
        opening: hit.fields?.[openingField]?.[0] as string | undefined,
      },
    ]),
  );
}

describe('descriptionOpening', () => {
  it('is the highlighter’s opening excerpt, character for character, for every text it is written for', async () => {
    const answers = await bothAnswers();
    expect(answers.size).toBe(texts.length);
    const wrong: unknown[] = [];
    let written = 0;
    texts.forEach((text, i) => {
      const answer = answers.get(`j${i}`);
      if (answer?.opening === undefined) return;
      written++;
      const fromField = answer.opening === '' ? [] : [answer.opening];
      if (JSON.stringify(fromField) !== JSON.stringify(answer.highlighted))
        wrong.push({ text, fromField, highlighted: answer.highlighted });
    });
    expect(wrong).toEqual([]);
    // the rule is useful only if most texts get their excerpt
    expect(written).toBeGreaterThan(texts.length * 0.6);
    console.info(`descriptionOpening written for ${written} of ${texts.length} texts`);
  }, 60_000);

  it('is written for the plain cases: short, exactly 160, longer, escapes, spaces, pairs', () => {
    for (const i of [0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 17, 18, 20, 21, 22])
      expect(descriptionOpening(tricky[i]), JSON.stringify(tricky[i])).toBeDefined();
    expect(descriptionOpening(null)).toBe('');
    // a word running far past 160 is left to the highlighter (a doc value's byte limit)
    expect(descriptionOpening(`${'あ'.repeat(160 + openingScanLimit - 1)}。`)).toBeDefined();
    expect(descriptionOpening(`${'あ'.repeat(160 + openingScanLimit + 1)}。`)).toBeUndefined();
    expect(descriptionOpening(`${'漢'.repeat(20_000)}。続き`)).toBeUndefined();
    expect(descriptionOpening('<b>"A&B"</b> \'x\'')).toBe(
      '&lt;b&gt;&quot;A&amp;B&quot;&lt;&#x2F;b&gt; &#x27;x&#x27;',
    );
  });
});
