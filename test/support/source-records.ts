/**
 * The oracle of the record tests (test/search/record-text.test.ts, compact-record.test.ts): a
 * search's records built from each hit's `_source`, as every search built them before the
 * compact copies, with the snippets from the highlighter. What the searches splice from the
 * copies must equal this, byte for byte.
 */
import { internalCorporateFields, internalJobFields } from '../../src/catalogue/record-fields.js';
import { type corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { selectFields, toCorporateRecord, toJobRecord } from '../../src/search/records.js';
import { compileWithOverflow } from '../../src/search/run-search.js';
import { compileSnippetHighlight } from '../../src/search/snippets.js';
import type { Services } from '../../src/services.js';

export async function recordsFromSource(
  services: Services,
  search: typeof corporateSearch | typeof jobSearch,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const plan = parseSearchRequest(search, body);
  const request = await compileWithOverflow(services, search, plan, undefined);
  const { stored_fields: _s, docvalue_fields: _d, ...rest } = request.body as Record<string, unknown>;
  const excludes = search === jobSearch ? internalJobFields : internalCorporateFields;
  // the snippets from the highlighter, as every job search asked before the opening excerpt
  const wantsSnippets = search === jobSearch && (!plan.fields || plan.fields.includes('descriptionSnippets'));
  const highlight = wantsSnippets ? { highlight: compileSnippetHighlight(plan) } : {};
  const { body: answer } = await services.opensearch.search({
    ...request,
    body: { ...rest, _source: { excludes }, ...highlight } as never,
  });
  return answer.hits.hits.map((hit) => {
    const doc = (hit._source ?? {}) as Record<string, unknown>;
    const record =
      search === jobSearch
        ? toJobRecord(doc, hit.highlight as Record<string, string[]> | undefined)
        : toCorporateRecord(doc);
    return selectFields(record, plan.fields);
  });
}
