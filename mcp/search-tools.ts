/**
 * The search tools, three per search and generated from the catalogue: search, count and
 * facet counts over companies (POST /corporates/…) and over job postings (POST /jobs/…).
 * Their parameters are the contract's request fields (mcp/contract.ts) with the filters
 * described by mcp/filters.ts; the API validates every call, so a bad filter is the API's
 * own 400, naming the field.
 */
import type { CorpsearchClient, ResponseMeta } from '../client/src/index.js';
import { type PublicSearch, publicCatalogue } from '../src/catalogue/public-catalogue.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../src/catalogue/searches.js';
import { contractProperties, type JsonSchema } from './contract.js';
import { costOf } from './costs.js';
import { filtersSchema } from './filters.js';
import type { Body } from './results.js';
import type { ToolSpec } from './tool-spec.js';

interface Side {
  console: PublicSearch;
  catalogue: SearchCatalogue;
  /** Tool name suffix and the word for its records. */
  noun: 'companies' | 'jobs';
  japanese: string;
  /** One line naming a record in a summary. */
  line(record: Body): string;
  search(api: CorpsearchClient, body: Body): Promise<Body & { meta: ResponseMeta }>;
  count(api: CorpsearchClient, body: Body): Promise<Body & { meta: ResponseMeta }>;
}

type Request = Parameters<CorpsearchClient['searchCorporates']>[0] &
  Parameters<CorpsearchClient['searchJobs']>[0];

const [corporatesConsole, jobsConsole] = publicCatalogue() as [PublicSearch, PublicSearch];

const sides: Side[] = [
  {
    console: corporatesConsole,
    catalogue: corporateSearch,
    noun: 'companies',
    japanese: '企業',
    line: (record) => `${String(record.name ?? '?')} (${String(record.corporateNumber ?? '?')})`,
    search: (api, body) => api.searchCorporates(body as Request),
    count: (api, body) => api.countCorporates(body as Request),
  },
  {
    console: jobsConsole,
    catalogue: jobSearch,
    noun: 'jobs',
    japanese: '求人',
    line: (record) =>
      `${String(record.title ?? '?')} / ${String(record.corporateName ?? '?')} (id ${String(record.id ?? '?')})`,
    search: (api, body) => api.searchJobs(body as Request),
    count: (api, body) => api.countJobs(body as Request),
  },
];

const shownRecords = 10;

function filterParameters(side: Side): Record<string, JsonSchema> {
  const request = contractProperties(side.catalogue.schemaNames.request);
  const filters = filtersSchema(side.console, side.catalogue.schemaNames.filters);
  // the groups take the same filters: a pointer, so the long schema is listed once
  const filterGroups = { ...request.filterGroups, items: { $ref: '#/properties/filters' } };
  return { filters, filterGroups };
}

function pagingParameters(side: Side): Record<string, JsonSchema> {
  const request = contractProperties(side.catalogue.schemaNames.request);
  const picked = ['sort', 'limit', 'offset', 'cursor', 'includeTotalResults', 'fields', 'facets'] as const;
  return Object.fromEntries(picked.map((name) => [name, request[name] as JsonSchema]));
}

const filtersHelp =
  'Conditions go in `filters` (the nested form: {"prefectureId": {"any": [13]}}); each filter says its Japanese label, its values and where its master ids come from. Every condition must hold; `filterGroups` adds alternatives (at least one group must hold as well).';

function facetSummary(facets: unknown): string {
  if (!facets || typeof facets !== 'object') return '';
  return Object.entries(facets as Record<string, Array<{ value: unknown; name: unknown; count: number }>>)
    .map(([facet, buckets]) => {
      const top = buckets
        .slice(0, 5)
        .map((b) => `${String(b.name ?? b.value)} (${String(b.value)}) ${b.count}`);
      return ` ${facet}: ${top.join(', ')}${buckets.length > 5 ? `, … ${buckets.length} values` : ''}.`;
    })
    .join('');
}

function searchSummary(side: Side, body: Body, args: Body): string {
  const results = (body.results ?? []) as Body[];
  const total = body.totalResults === null ? 'An uncounted number of' : String(body.totalResults);
  const lines = results.slice(0, shownRecords).map((record) => side.line(record));
  const more = results.length > shownRecords ? `; … ${results.length - shownRecords} more` : '';
  const cursor = typeof body.nextCursor === 'string' ? ' Next page: send nextCursor as cursor.' : '';
  return `${total} ${side.noun} match; ${results.length} returned from offset ${String(args.offset ?? 0)}${
    lines.length ? `: ${lines.join('; ')}${more}` : ''
  }.${cursor}${facetSummary(body.facets)}`;
}

function searchTool(side: Side): ToolSpec {
  const path = `/${side.catalogue.index}/search`;
  return {
    name: `search_${side.noun}`,
    title: `Search ${side.noun} (${side.japanese}検索)`,
    description: `${side.japanese}検索: the ${side.noun} matching the conditions, one record per ${side.noun === 'companies' ? 'company' : 'posting'} (POST /rest/v1${path}). ${filtersHelp} Use count_${side.noun} first to see how many match, for free. Paging: limit (1-1000, default 25) and offset, or cursor "*" then nextCursor; \`fields\` keeps records small. ${costOf('POST', path)}`,
    properties: { ...filterParameters(side), ...pagingParameters(side) },
    async run(api, args) {
      const { meta, ...body } = await side.search(api, args);
      return { summary: searchSummary(side, body, args), body, meta };
    },
  };
}

function countTool(side: Side): ToolSpec {
  const path = `/${side.catalogue.index}/count`;
  return {
    name: `count_${side.noun}`,
    title: `Count ${side.noun} (${side.japanese}件数)`,
    description: `${side.japanese}件数: the exact number of ${side.noun} matching the conditions, and what exporting them all would cost in credits (POST /rest/v1${path}). Takes the same conditions as search_${side.noun}. ${filtersHelp} ${costOf('POST', path)}`,
    properties: filterParameters(side),
    async run(api, args) {
      const { meta, ...body } = await side.count(api, args);
      return {
        summary: `${String(body.totalResults)} ${side.noun} match. Exporting them all would cost ${String(body.exportCredits)} credits. This count was free.`,
        body,
        meta,
      };
    },
  };
}

function facetsTool(side: Side): ToolSpec {
  const path = `/${side.catalogue.index}/search`;
  const { facets } = pagingParameters(side);
  const idField = side.catalogue.sort.tieBreaker;
  return {
    name: `facet_counts_${side.noun}`,
    title: `Facet counts of ${side.noun} (${side.japanese}の集計)`,
    description: `集計: for each facet asked, the exact number of ${side.noun} per value (a prefecture, a medium, an industry, …) under the conditions, with the master's name; the total too. A bucket's value sent back as the filter of the same name selects exactly its count. One search with \`facets\` (POST /rest/v1${path}, limit 1). ${filtersHelp} ${costOf('POST', path)}`,
    properties: { facets: facets as JsonSchema, ...filterParameters(side) },
    required: ['facets'],
    async run(api, args) {
      const { meta, ...answer } = await side.search(api, { ...args, limit: 1, fields: [idField] });
      const body = { totalResults: answer.totalResults, facets: answer.facets ?? {} };
      return {
        summary: `${String(body.totalResults)} ${side.noun} match.${facetSummary(body.facets)}`,
        body,
        meta,
      };
    },
  };
}

export function searchTools(): ToolSpec[] {
  return sides.flatMap((side) => [searchTool(side), countTool(side), facetsTool(side)]);
}
