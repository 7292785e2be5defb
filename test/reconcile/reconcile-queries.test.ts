/**
 * The reconciliation protocol as plain values (src/reconcile/): prefecture spellings to JIS
 * codes, a query batch to one match request, a matcher's candidate to the spec's (confidence
 * before score, features passed through), the preview page escaped. Pure: no server, no engine.
 */
import { describe, expect, it } from 'vitest';
import { loadMasters } from '../../src/masters/lookups.js';
import { prefectureIdOf } from '../../src/reconcile/prefectures.js';
import { featuresOf, parseBatch, resultOf, scoreOf } from '../../src/reconcile/queries.js';
import { entitySuggestions, escapeHtml, manifestOf, previewHtml } from '../../src/reconcile/service.js';

describe('a prefecture as a user types it', () => {
  it.each([
    ['東京都', 13],
    ['東京', 13],
    ['Tokyo', 13],
    ['TOKYO', 13],
    ['tokyo-to', 13],
    ['とうきょう', 13],
    ['トウキョウト', 13],
    ['１３', 13],
    ['13', 13],
    ['北海道', 1],
    ['Hokkaido', 1],
    ['京都', 26],
    ['京都府', 26],
    ['Kyoto', 26],
    ['大阪', 27],
    ['Osaka Prefecture', 27],
    ['神奈川', 14],
    ['かながわけん', 14],
    ['沖縄県', 47],
  ])('%s -> %i', (text, id) => {
    expect(prefectureIdOf(text)).toBe(id);
  });

  it('every prefecture of the master by its name, reading and romaji', () => {
    const items = loadMasters().lists.prefectures;
    expect(items).toHaveLength(47);
    for (const item of items) {
      expect([item.name, item.nameKana, item.nameRomaji].map((text) => prefectureIdOf(String(text)))).toEqual(
        [item.id, item.id, item.id],
      );
    }
  });

  it.each(['', 'Atlantis', '0', '48', '北海', '東'])('%s -> none', (text) => {
    expect(prefectureIdOf(text)).toBeUndefined();
  });
});

describe('a query batch', () => {
  it('becomes one match request, in the batch order, with the largest limit', () => {
    const { batch, problems } = parseBatch(
      JSON.stringify({
        a: { query: '㈱マルカ物流', limit: 2, properties: [{ pid: 'prefecture', v: ['', '神奈川'] }] },
        b: {
          query: 'NOVA',
          type: ['Corporation'],
          properties: [
            { pid: 'phone', v: '03-5555-6666' },
            { pid: 'website', v: { id: 'https://nova.example.jp', name: 'site' } },
            { pid: 'address', v: '東京都千代田区' },
            { pid: 'corporateNumber', v: '' },
          ],
        },
        c: { properties: [{ pid: 'corporateNumber', v: '9000000999999' }] },
        d: { query: 'x', limit: 50 },
      }),
    );
    expect(problems).toEqual([]);
    expect(batch?.queries.map((query) => [query.key, query.limit])).toEqual([
      ['a', 2],
      ['b', 3],
      ['c', 3],
      ['d', 10],
    ]);
    expect(batch?.match).toEqual({
      records: [
        { name: '㈱マルカ物流', prefectureId: 14 },
        {
          name: 'NOVA',
          phoneNumber: '03-5555-6666',
          websiteUrl: 'https://nova.example.jp',
          address: '東京都千代田区',
        },
        { name: '', corporateNumber: '9000000999999' },
        { name: 'x' },
      ],
      candidates: 10,
    });
  });

  it.each([
    ['not JSON', '{', 'queries'],
    ['an array', '[]', 'queries'],
    ['empty', '{}', 'queries'],
    ['a query not an object', '{"q":1}', 'queries.q'],
    ['neither query nor properties', '{"q":{"limit":1}}', 'queries.q'],
    ['an empty query', '{"q":{"query":" "}}', 'queries.q.query'],
    ['a limit of 0', '{"q":{"query":"x","limit":0}}', 'queries.q.limit'],
    ['a fractional limit', '{"q":{"query":"x","limit":1.5}}', 'queries.q.limit'],
    ['another type', '{"q":{"query":"x","type":"Person"}}', 'queries.q.type'],
    ['a type not a string', '{"q":{"query":"x","type":[1]}}', 'queries.q.type'],
    ['an unknown field', '{"q":{"query":"x","filter":1}}', 'queries.q.filter'],
    ['an unknown type_strict', '{"q":{"query":"x","type_strict":"some"}}', 'queries.q.type_strict'],
    ['properties not an array', '{"q":{"query":"x","properties":{}}}', 'queries.q.properties'],
    ['a property without v', '{"q":{"query":"x","properties":[{"pid":"phone"}]}}', 'queries.q.properties[0]'],
    [
      'an unknown pid',
      '{"q":{"query":"x","properties":[{"pid":"capital","v":"1"}]}}',
      'queries.q.properties[0].pid',
    ],
    [
      'a value of no kind',
      '{"q":{"query":"x","properties":[{"pid":"phone","v":[true]}]}}',
      'queries.q.properties[0].v',
    ],
    [
      'no prefecture',
      '{"q":{"query":"x","properties":[{"pid":"prefecture","v":"Mars"}]}}',
      'queries.q.properties[0].v',
    ],
    [
      'a value too long',
      `{"q":{"query":"x","properties":[{"pid":"address","v":"${'a'.repeat(301)}"}]}}`,
      'queries.q.properties[0].v',
    ],
    [
      'a bad number',
      '{"q":{"query":"x","properties":[{"pid":"corporateNumber","v":"123"}]}}',
      'queries.q.properties[0].v',
    ],
  ])('%s is refused, naming %s', (_name, text, field) => {
    const { batch, problems } = parseBatch(text);
    expect(batch).toBeUndefined();
    expect(problems.map((problem) => problem.field)).toEqual([field]);
    for (const problem of problems) expect(problem.reason.length).toBeGreaterThan(10);
  });

  it('more than 100 queries are refused as one problem', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`q${i}`, { query: 'x' }]));
    expect(parseBatch(JSON.stringify(many)).problems).toEqual([
      { field: 'queries', reason: expect.stringContaining('at most 100') },
    ]);
  });
});

const candidate = {
  corporateNumber: '7010401000001',
  name: '株式会社<b>マルカ</b>',
  furigana: 'マルカ',
  prefectureId: 14,
  cityName: '横浜市中区',
  confidence: 0.8,
  score: 0.8,
  matchedOn: ['name' as const],
  features: [] as Array<{ id: 'nameKey'; value: boolean }>,
};

describe('a candidate', () => {
  it('scores the confidence, 0-100, two decimals', () => {
    expect(scoreOf(candidate)).toBe(80);
    expect(scoreOf({ ...candidate, confidence: 0.12345 })).toBe(12.35);
    expect(scoreOf({ ...candidate, confidence: 0 })).toBe(0);
    expect(scoreOf({ ...candidate, confidence: 1.2 })).toBe(100);
  });

  it('passes the features through, keeping only the spec’s shape', () => {
    expect(featuresOf(candidate)).toEqual([]);
    const features = [
      { id: 'nameKey', value: true },
      { id: 'similarity', value: 0.82 },
    ];
    expect(featuresOf({ ...candidate, features })).toEqual(features);
    expect(
      featuresOf({ ...candidate, features: [...features, { id: 'x', value: 'text' }, { value: 1 }] }),
    ).toEqual(features);
  });

  it('is the match only when it is the matcher’s match; limited to the query’s limit', () => {
    const other = { ...candidate, corporateNumber: '1010401000002', confidence: 0.3, score: 0.3 };
    const query = { key: 'q', record: { name: 'マルカ' }, limit: 1 };
    const answered = resultOf(
      { ...query, limit: 2 },
      {
        match: { ...candidate, confidence: 1, score: 1 },
        candidates: [{ ...candidate, confidence: 1, score: 1 }, other],
        overMaxCredits: false,
      },
      () => '神奈川県',
    );
    expect(answered.result.map((c) => [c.id, c.match, c.score])).toEqual([
      ['7010401000001', true, 100],
      ['1010401000002', false, 30],
    ]);
    expect(answered.result[0]?.description).toBe('マルカ / 神奈川県横浜市中区');
    const undecided = resultOf(
      query,
      { match: null, candidates: [candidate, other], overMaxCredits: false },
      () => undefined,
    );
    expect(undecided.result.map((c) => c.match)).toEqual([false]);
  });
});

describe('the preview page and the manifest', () => {
  it('escapes every value of the company', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    const html = previewHtml({ ...candidate, cityName: '<script>alert(1)</script>' });
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('株式会社&lt;b&gt;マルカ&lt;/b&gt;');
    expect(html).toContain('&lt;script&gt;');
  });

  it('a page and a suggestion without reading or place say what they have', () => {
    const bare = { ...candidate, furigana: null, prefectureId: null, cityName: null };
    const html = previewHtml(bare);
    expect(html).toContain('7010401000001');
    expect(html).not.toContain('class="kana"');
    expect(
      entitySuggestions([
        { ...bare, formerName: null, foundBy: 'prefix' },
        { ...candidate, formerName: '旧マルカ', foundBy: 'formerName' },
      ]).result,
    ).toEqual([
      {
        id: '7010401000001',
        name: candidate.name,
        notable: [{ id: 'Corporation', name: 'Corporation (法人)' }],
      },
      {
        id: '7010401000001',
        name: candidate.name,
        description: '旧商号 旧マルカ / マルカ / 神奈川県横浜市中区',
        notable: [{ id: 'Corporation', name: 'Corporation (法人)' }],
      },
    ]);
  });

  it('carries the key into the suggest and preview URLs, encoded; none when none was given', () => {
    const endpoint = 'https://api.example.jp/rest/v1/reconcile';
    const keyed = manifestOf({ endpoint, apiKey: 'csk_a+b/c' }) as {
      preview: { url: string };
      suggest: { entity: { service_path: string } };
      view: { url: string };
    };
    expect(keyed.preview.url).toBe(`${endpoint}/preview?apiKey=csk_a%2Bb%2Fc&id={{id}}`);
    expect(keyed.suggest.entity.service_path).toBe('/suggest/entity?apiKey=csk_a%2Bb%2Fc');
    expect(keyed.view.url).not.toContain('apiKey');
    const bare = manifestOf({ endpoint }) as { preview: { url: string } };
    expect(bare.preview.url).toBe(`${endpoint}/preview?id={{id}}`);
  });
});
