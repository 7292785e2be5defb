/**
 * The tools beside the searches: name matching (POST /corporates/match), name suggestions
 * (GET /corporates/suggest), one posting's full text (GET /jobs/{jobId}/detail) and the
 * master lists (GET /master/{name}). Parameters come from the contract (openapi.yaml).
 */
import { CorpsearchError, type MatchRequest, metaOf } from '../client/src/index.js';
import { masterNames } from '../src/masters/masters.js';
import { contractProperties, parameterSchema } from './contract.js';
import { costOf } from './costs.js';
import { mastersToolName } from './filters.js';
import type { Body } from './results.js';
import type { ToolSpec } from './tool-spec.js';

function matchSummary(body: Body): string {
  const results = (body.results ?? []) as Array<{
    match: unknown;
    candidates: unknown[];
    overMaxCredits: boolean;
  }>;
  const matched = results.filter((result) => result.match).length;
  const over = results.filter((result) => result.overMaxCredits).length;
  const unsure = results.filter(
    (result) => !result.match && !result.overMaxCredits && result.candidates.length > 0,
  );
  return `${results.length} records: ${matched} matched to one company, ${unsure.length} with candidates only, ${
    results.length - matched - unsure.length - over
  } without candidates${over ? `, ${over} withheld by maxCredits (send them again)` : ''}. Credits charged: ${String(body.creditsCharged)}.`;
}

const matchTool: ToolSpec = {
  name: 'match_companies',
  title: 'Match company names to corporate numbers (名寄せ・法人番号付与)',
  description: `名寄せ: company names as a list writes them (a CRM export) -> the one company each names, with its corporate number (法人番号), or candidates with reasons when the evidence does not single one out. Give what else is known per record (prefectureId, address, phoneNumber, websiteUrl, corporateNumber): it decides between companies of the same name. Results in input order; 1 to 1,000 records per call (POST /rest/v1/corporates/match). ${costOf('POST', '/corporates/match')}`,
  properties: contractProperties('MatchRequest'),
  required: ['records'],
  async run(api, args) {
    // the raw call: one request, answered as the API answers it (the client's match() splits lists)
    const { data, error, response } = await api.raw.POST('/corporates/match', {
      body: args as unknown as MatchRequest,
      params: { header: { 'Idempotency-Key': globalThis.crypto.randomUUID() } },
    });
    const meta = metaOf(response, null);
    if (!data) throw new CorpsearchError(response.status, error as CorpsearchError['body'], meta);
    const body = data as unknown as Body;
    return { summary: matchSummary(body), body, meta };
  },
};

const suggestTool: ToolSpec = {
  name: 'suggest_companies',
  title: 'Suggest companies by the start of a name (社名サジェスト)',
  description: `社名サジェスト: companies whose name, reading (furigana) or romaji starts with what was typed (kanji, kana or Latin), exact names first; for finding a company's exact name or corporate number from a fragment (GET /rest/v1/corporates/suggest). ${costOf('GET', '/corporates/suggest')}`,
  properties: {
    q: parameterSchema('get', '/corporates/suggest', 'q'),
    limit: parameterSchema('get', '/corporates/suggest', 'limit'),
  },
  required: ['q'],
  async run(api, args) {
    const { meta, ...body } = await api.suggest(String(args.q ?? ''), {
      ...(args.limit === undefined ? {} : { limit: args.limit as number }),
    });
    const names = body.suggestions.map((s) => `${s.name} (${s.corporateNumber})`);
    // after a typo the names are like the text, not names it starts: say so
    const alike = body.suggestions.some((s) => s.foundBy === 'nearName');
    return {
      summary: `${names.length} ${alike ? 'names like it (none starts with it)' : 'suggestions'}${names.length ? `: ${names.join('; ')}` : ''}.`,
      body,
      meta,
    };
  },
};

const detailTool: ToolSpec = {
  name: 'get_job_detail',
  title: 'Job posting detail text (求人詳細)',
  description: `求人詳細: the full detail text of one job posting, by the \`id\` of a search_jobs result; also after the text left text search (GET /rest/v1/jobs/{jobId}/detail). ${costOf('GET', '/jobs/{jobId}/detail')}`,
  properties: { jobId: parameterSchema('get', '/jobs/{jobId}/detail', 'jobId') },
  required: ['jobId'],
  async run(api, args) {
    const { meta, ...body } = await api.jobDetail(String(args.jobId ?? ''));
    const length = typeof body.description === 'string' ? body.description.length : 0;
    return {
      summary: `Job ${body.id} of company ${body.corporateNumber}: ${length} characters of detail text, collected ${String(body.descriptionCollectedAt)}.`,
      body,
      meta,
    };
  },
};

const mastersTool: ToolSpec = {
  name: mastersToolName,
  title: 'Master lists (マスタ)',
  description: `マスタ: a reference list whose ids (or codes, for markets) the filters take, with their Japanese names: prefectures (都道府県), industries (業種, with subCategories), business-types (業態, with subCategories), media (求人媒体), job-categories (職種, with subCategories), markets (上場市場), employment-types (雇用形態), government-bodies (府省), certification-kinds (届出・認定の種類), award-kinds (表彰の種類) (GET /rest/v1/master/{name}). ${costOf('GET', '/master/prefectures')}`,
  properties: {
    name: { type: 'string', enum: [...masterNames], description: 'Which master list.' },
  },
  required: ['name'],
  async run(api, args) {
    const items = await api.master(String(args.name) as (typeof masterNames)[number]);
    return { summary: `${String(args.name)}: ${items.length} entries.`, body: { items } };
  },
};

export const otherTools: ToolSpec[] = [matchTool, suggestTool, detailTool, mastersTool];
