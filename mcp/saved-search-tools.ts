/**
 * The saved-search tools: save a search body under a name, list the saved ones, open one (run
 * it as the search it names, charged as that search) and delete one (POST, GET and DELETE
 * /saved-searches). Parameters come from the contract (openapi.yaml).
 */
import type { CorpsearchClient, SavedSearch } from '../client/src/index.js';
import { contractProperties, parameterSchema } from './contract.js';
import { costOf } from './costs.js';
import type { Body } from './results.js';
import type { ToolSpec } from './tool-spec.js';

type SearchBody = Parameters<CorpsearchClient['searchCorporates']>[0] &
  Parameters<CorpsearchClient['searchJobs']>[0];

const idParameter = () => parameterSchema('get', '/saved-searches/{savedSearchId}', 'savedSearchId');
const line = (saved: SavedSearch) =>
  `${saved.name} (${saved.search}, id ${saved.id}, saved ${saved.createdAt})`;

const saveTool: ToolSpec = {
  name: 'save_search',
  title: 'Save a search (検索条件の保存)',
  description: `検索条件の保存: keeps a company or job search body under a name for the user (every key of the user sees it), to open it again later; \`body\` is any body search_companies (search: corporates) or search_jobs (search: jobs) accepts, checked as that search checks it (POST /rest/v1/saved-searches). ${costOf('POST', '/saved-searches')}`,
  properties: contractProperties('SavedSearchCreate'),
  required: ['name', 'search', 'body'],
  readOnly: false,
  async run(api, args) {
    const { meta, ...saved } = await api.saveSearch(
      args as unknown as Parameters<CorpsearchClient['saveSearch']>[0],
    );
    return { summary: `Saved: ${line(saved)}.`, body: saved as unknown as Body, meta };
  },
};

const listTool: ToolSpec = {
  name: 'list_saved_searches',
  title: 'Saved searches (保存した検索条件)',
  description: `保存した検索条件: the user's saved searches, newest first, each with its body (GET /rest/v1/saved-searches). ${costOf('GET', '/saved-searches')}`,
  properties: {},
  async run(api) {
    const { meta, results } = await api.savedSearches();
    const lines = results.map(line);
    return {
      summary: `${results.length} saved searches${lines.length ? `: ${lines.join('; ')}` : ''}.`,
      body: { results },
      meta,
    };
  },
};

const openTool: ToolSpec = {
  name: 'open_saved_search',
  title: 'Run a saved search (保存した検索の実行)',
  description: `保存した検索の実行: runs a saved search as the search it names (its body as saved; \`limit\` and \`offset\` here page through it) and answers its results (GET /rest/v1/saved-searches/{savedSearchId}, then POST /rest/v1/corporates/search or /jobs/search). ${costOf('POST', '/corporates/search')}`,
  properties: {
    savedSearchId: idParameter(),
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description: 'Page size in place of the saved one.',
    },
    offset: { type: 'integer', minimum: 0, description: 'Offset in place of the saved one.' },
  },
  required: ['savedSearchId'],
  async run(api, args) {
    const { meta: _meta, ...saved } = await api.savedSearch(String(args.savedSearchId ?? ''));
    const body = {
      ...saved.body,
      ...(args.limit === undefined ? {} : { limit: args.limit }),
      ...(args.offset === undefined ? {} : { offset: args.offset }),
    } as SearchBody;
    const { meta, ...answer } =
      saved.search === 'corporates' ? await api.searchCorporates(body) : await api.searchJobs(body);
    const results = (answer.results ?? []) as unknown[];
    return {
      summary: `${saved.name}: ${results.length} results on this page of ${String(answer.totalResults ?? 'an uncounted number of')}.`,
      body: { savedSearch: saved, ...answer } as unknown as Body,
      meta,
    };
  },
};

const deleteTool: ToolSpec = {
  name: 'delete_saved_search',
  title: 'Delete a saved search (保存した検索条件の削除)',
  description: `保存した検索条件の削除: deletes one of the user's saved searches (DELETE /rest/v1/saved-searches/{savedSearchId}). ${costOf('DELETE', '/saved-searches/{savedSearchId}')}`,
  properties: { savedSearchId: idParameter() },
  required: ['savedSearchId'],
  readOnly: false,
  async run(api, args) {
    const { meta } = await api.deleteSavedSearch(String(args.savedSearchId ?? ''));
    return { summary: `Deleted saved search ${String(args.savedSearchId)}.`, body: {}, meta };
  },
};

const changesTool: ToolSpec = {
  name: 'saved_search_changes',
  title: 'What changed in a saved search (保存した検索の変化)',
  description: `保存した検索の変化: the companies (or, for a job search, the postings) that entered or left a watched saved search's results, or changed a watched field, since a cursor (the nextCursor of the last call) or from a time; each change once, in order (GET /rest/v1/saved-searches/{savedSearchId}/changes). ${costOf('GET', '/saved-searches/{savedSearchId}/changes')}`,
  properties: {
    savedSearchId: idParameter(),
    cursor: parameterSchema('get', '/saved-searches/{savedSearchId}/changes', 'cursor'),
    since: parameterSchema('get', '/saved-searches/{savedSearchId}/changes', 'since'),
    limit: parameterSchema('get', '/saved-searches/{savedSearchId}/changes', 'limit'),
  },
  required: ['savedSearchId'],
  async run(api, args) {
    const { meta, ...page } = await api.savedSearchChanges(String(args.savedSearchId ?? ''), {
      ...(args.cursor === undefined ? {} : { cursor: String(args.cursor) }),
      ...(args.since === undefined ? {} : { since: String(args.since) }),
      ...(args.limit === undefined ? {} : { limit: args.limit as number }),
    });
    const count = (type: string) => page.changes.filter((change) => change.type === type).length;
    return {
      summary: `${page.changes.length} changes: ${count('entered')} entered, ${count('left')} left, ${count('changed')} changed. Next cursor: ${String(page.nextCursor)}.`,
      body: page as unknown as Body,
      meta,
    };
  },
};

export const savedSearchTools: ToolSpec[] = [saveTool, listTool, openTool, deleteTool, changesTool];
