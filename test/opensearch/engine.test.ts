/**
 * Proves the engine under the tests is a real OpenSearch with the analysis the mappings
 * need: 1-2 gram substring matching on Japanese text, width and case folding, highlighting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexDefinitions } from '../../src/opensearch/mappings.js';
import { testOpenSearch, uniquePrefix } from '../support/env.js';

const client = testOpenSearch();
const index = `${uniquePrefix('engine')}texts`;

const docs = [
  { id: '1', name: '東京都庁', body: '東京都新宿区西新宿にある東京都庁の案内。' },
  { id: '2', name: '大阪府庁', body: '大阪府大阪市中央区の府庁舎。' },
  { id: '3', name: 'abc商事', body: 'プログラマー募集。<script>alert(1)</script>' },
  { id: '4', name: 'ｶﾌﾞｼｷｶﾞｲｼｬ', body: '半角カナの社名。' },
];

async function matchPhrase(field: string, query: string): Promise<string[]> {
  const { body } = await client.search({
    index,
    body: { query: { match_phrase: { [field]: query } }, sort: [{ _id: 'asc' }] } as never,
  });
  return body.hits.hits.map((hit) => String(hit._id));
}

beforeAll(async () => {
  const shared = indexDefinitions()[0]?.settings;
  await client.indices.create({
    index,
    body: {
      settings: {
        number_of_shards: 1,
        number_of_replicas: 0,
        analysis: shared?.analysis,
        index: shared?.index,
      },
      mappings: {
        properties: {
          name: { type: 'keyword', fields: { substring: { type: 'text', analyzer: 'substring' } } },
          body: { type: 'text', analyzer: 'substring', index_options: 'offsets' },
        },
      },
    } as never,
  });
  await client.bulk({
    refresh: true,
    body: docs.flatMap(({ id, ...doc }) => [{ index: { _index: index, _id: id } }, doc]),
  });
});

afterAll(async () => {
  await client.indices.delete({ index });
  await client.close();
});

describe('the OpenSearch node under test', () => {
  it('is OpenSearch 3.x', async () => {
    const { body } = await client.info();
    expect(body.version.distribution).toBe('opensearch');
    expect(body.version.number).toMatch(/^3\./);
  });

  it('finds 京都 inside 東京都庁 and not in 大阪府', async () => {
    expect(await matchPhrase('name.substring', '京都')).toEqual(['1']);
  });

  it('matches a 1-character query as a substring', async () => {
    expect(await matchPhrase('name.substring', '府')).toEqual(['2']);
    expect(await matchPhrase('name.substring', '庁')).toEqual(['1', '2']);
  });

  it('folds width and case: ＡＢＣ and ABC find abc', async () => {
    expect(await matchPhrase('name.substring', 'ＡＢＣ')).toEqual(['3']);
    expect(await matchPhrase('name.substring', 'ABC')).toEqual(['3']);
  });

  it('folds half-width katakana to full width', async () => {
    expect(await matchPhrase('name.substring', 'カブシキ')).toEqual(['4']);
  });

  it('does not match characters that are present but not adjacent', async () => {
    expect(await matchPhrase('name.substring', '東庁')).toEqual([]);
  });

  it('keeps the keyword field exact', async () => {
    const { body } = await client.search({ index, body: { query: { term: { name: '東京都' } } } as never });
    expect(body.hits.hits).toHaveLength(0);
  });

  it('highlights the match in <mark> and escapes the rest', async () => {
    const { body } = await client.search({
      index,
      body: {
        query: {
          bool: { should: [{ match_phrase: { body: '東京都庁' } }, { match_phrase: { body: 'alert' } }] },
        },
        highlight: {
          encoder: 'html',
          pre_tags: ['<mark>'],
          post_tags: ['</mark>'],
          fields: { body: { type: 'unified', number_of_fragments: 5 } },
        },
        sort: [{ _id: 'asc' }],
      } as never,
    });
    const [tokyo, abc] = body.hits.hits.map((hit) => hit.highlight?.body?.join(' ') ?? '');
    expect(tokyo).toContain('<mark>');
    expect(tokyo?.replace(/<\/?mark>/g, '')).toContain('東京都庁');
    expect(abc).toContain('&lt;script&gt;');
    expect(abc).not.toContain('<script>');
  });
});
