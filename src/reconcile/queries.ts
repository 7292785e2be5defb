/**
 * The W3C Reconciliation Service API 0.2 (docs/reconciliation.md) in plain values: a query
 * batch (the JSON of the `queries` form field) checked and turned into one match request
 * (src/names/match.ts), and the match results turned back into a result batch.
 *
 *   {"q0": {"query": "㈱マルカ物流", "type": "Corporation", "limit": 3,
 *           "properties": [{"pid": "prefecture", "v": "神奈川"}]}}
 *   -> {records: [{name: '㈱マルカ物流', prefectureId: 14}], candidates: 3}
 *   -> {"q0": {"result": [{"id": "7010401000001", "name": "株式会社マルカ物流",
 *           "type": [{"id": "Corporation", "name": "Corporation"}], "score": 100, "match": true,
 *           "features": [...]}]}}
 *
 * A query that breaks the spec's schema or names a property or type this service does not
 * have is a 400 naming the field (`queries.q0.properties[0].pid`) and the reason.
 */
import type { FieldError } from '../errors/catalogue.js';
import type { MatchRecord, MatchRequest, MatchResult } from '../names/match.js';
import { isValidCorporateNumber } from '../text/corporate-number.js';
import { prefectureIdOf } from './prefectures.js';

/** The one type of this service: every entity is a company with a corporate number. */
export const corporationType = { id: 'Corporation', name: 'Corporation (法人)' } as const;

/** The properties a query may give (`pid`), each the match record's field it fills. */
export const reconcileProperties = [
  {
    id: 'prefecture',
    name: 'Prefecture (都道府県)',
    description: 'As written (東京都, 東京, Tokyo, とうきょう) or its JIS code 1-47',
  },
  { id: 'address', name: 'Address (所在地)', description: 'Starting with the prefecture, then the city' },
  { id: 'phone', name: 'Phone number (電話番号)', description: 'Any format; compared by its digits' },
  { id: 'website', name: 'Website (ウェブサイト)', description: 'A URL or host; compared by its host' },
  {
    id: 'corporateNumber',
    name: 'Corporate number (法人番号)',
    description: '13 digits; a valid one decides alone',
  },
] as const;

export type PropertyId = (typeof reconcileProperties)[number]['id'];

/** Queries at most in one batch (the manifest's `batchSize`). */
export const maxBatchSize = 100;
/** Candidates at most per query: the match's own maximum (`candidates` of a match request). */
export const maxCandidates = 10;
/** Candidates per query when the query gives no `limit`. */
export const defaultCandidates = 3;
/** A query's name, as a match record's name (openapi.yaml, MatchRecord). */
const maxQueryLength = 500;
const maxValueLength = 300;

export interface ReconcileQuery {
  /** The key of the query in its batch (`q0`). */
  key: string;
  record: MatchRecord;
  limit: number;
}

export interface ReconcileBatch {
  queries: ReconcileQuery[];
  /** The one match request of the whole batch (the largest limit as its `candidates`). */
  match: MatchRequest;
}

/** A feature as the spec has it: an id and a number or boolean. */
export interface Feature {
  id: string;
  value: number | boolean;
}

/**
 * A candidate of the matcher, read defensively: its `confidence` (0-1; `score` holds the same
 * value) and its `features`, of which only the spec's shape is passed on.
 */
export type MatcherCandidate = Omit<MatchResult['candidates'][number], 'confidence' | 'features'> & {
  confidence?: number;
  features?: readonly unknown[];
};

export interface ReconcileCandidate {
  id: string;
  name: string;
  description?: string;
  type: Array<{ id: string; name: string }>;
  score: number;
  match: boolean;
  features: Feature[];
}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const queryFields = new Set(['query', 'type', 'limit', 'properties', 'type_strict']);

/** A property value as text: a string or number as written, an entity `{id, name}` by its id. */
function valueText(value: Json): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (isObject(value) && typeof value.id === 'string') return value.id.trim();
  return undefined;
}

function checkType(type: Json, field: string, problems: FieldError[]): void {
  const ids = typeof type === 'string' ? [type] : type;
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    problems.push({ field, reason: 'must be a type id or an array of type ids (strings)' });
    return;
  }
  if (ids.some((id) => id !== corporationType.id))
    problems.push({ field, reason: `must be ${corporationType.id}, the one type of this service` });
}

/** Fills the record's field of one property; a problem for an unknown pid or a bad value. */
function applyProperty(record: MatchRecord, property: Json, field: string, problems: FieldError[]): void {
  if (!isObject(property) || typeof property.pid !== 'string' || !('v' in property)) {
    problems.push({ field, reason: 'must be an object with pid (a property id) and v (its value)' });
    return;
  }
  const pid = property.pid;
  const known = reconcileProperties.map((p) => p.id) as readonly string[];
  if (!known.includes(pid)) {
    problems.push({ field: `${field}.pid`, reason: `must be one of ${known.join(', ')}` });
    return;
  }
  // several values: the first that says something (the matcher weighs one value per field)
  const values = Array.isArray(property.v) ? property.v : [property.v];
  const texts = values.map(valueText);
  if (values.length === 0 || texts.some((text) => text === undefined)) {
    problems.push({
      field: `${field}.v`,
      reason: 'must be a string, a number or an entity {id}, or an array of them',
    });
    return;
  }
  const text = (texts as string[]).find((value) => value !== '');
  if (text === undefined) return;
  if (text.length > maxValueLength) {
    problems.push({ field: `${field}.v`, reason: `must be at most ${maxValueLength} characters` });
    return;
  }
  switch (pid as PropertyId) {
    case 'prefecture': {
      const id = prefectureIdOf(text);
      if (id === undefined)
        problems.push({
          field: `${field}.v`,
          reason: 'must name a prefecture (東京都, 東京, Tokyo) or give its JIS code 1-47',
        });
      else record.prefectureId = id;
      return;
    }
    case 'address':
      record.address = text;
      return;
    case 'phone':
      record.phoneNumber = text;
      return;
    case 'website':
      record.websiteUrl = text;
      return;
    case 'corporateNumber': {
      const number = text.normalize('NFKC').replace(/[\s-]/g, '');
      if (!isValidCorporateNumber(number))
        problems.push({
          field: `${field}.v`,
          reason: 'must be a corporate number: 13 digits, check digit first',
        });
      else record.corporateNumber = number;
      return;
    }
  }
}

function parseQuery(key: string, query: Json, problems: FieldError[]): ReconcileQuery | undefined {
  const at = `queries.${key}`;
  if (!isObject(query)) {
    problems.push({ field: at, reason: 'must be an object (a reconciliation query)' });
    return undefined;
  }
  const before = problems.length;
  for (const name of Object.keys(query))
    if (!queryFields.has(name))
      problems.push({
        field: `${at}.${name}`,
        reason: `is not a field of a query (${[...queryFields].join(', ')})`,
      });
  const record: MatchRecord = { name: '' };
  if (query.query !== undefined) {
    if (typeof query.query !== 'string' || query.query.trim() === '')
      problems.push({ field: `${at}.query`, reason: 'must be a non-empty string' });
    else if (query.query.length > maxQueryLength)
      problems.push({ field: `${at}.query`, reason: `must be at most ${maxQueryLength} characters` });
    else record.name = query.query;
  }
  if (query.type !== undefined) checkType(query.type, `${at}.type`, problems);
  let limit = defaultCandidates;
  if (query.limit !== undefined) {
    if (typeof query.limit !== 'number' || !Number.isInteger(query.limit) || query.limit < 1)
      problems.push({ field: `${at}.limit`, reason: 'must be a positive integer' });
    // a limit is a maximum: past the match's own, the match's
    else limit = Math.min(query.limit, maxCandidates);
  }
  if (query.type_strict !== undefined && !['any', 'should', 'all'].includes(query.type_strict as string))
    problems.push({ field: `${at}.type_strict`, reason: 'must be one of any, should, all' });
  const properties = query.properties;
  if (properties !== undefined) {
    if (!Array.isArray(properties))
      problems.push({ field: `${at}.properties`, reason: 'must be an array of {pid, v}' });
    else
      properties.forEach((property, index) => {
        applyProperty(record, property, `${at}.properties[${index}]`, problems);
      });
  }
  const hasProperties = Array.isArray(properties) && properties.length > 0;
  if (query.query === undefined && !hasProperties)
    problems.push({ field: at, reason: 'must give query, or properties (at least one)' });
  return problems.length === before ? { key, record, limit } : undefined;
}

/**
 * The `queries` form field: JSON text of a query batch. Throws the field errors (a 400) when
 * anything in it is wrong; every query's problems are listed, not only the first.
 */
export function parseBatch(text: string): { batch?: ReconcileBatch; problems: FieldError[] } {
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problems: [{ field: 'queries', reason: 'must be JSON text (a reconciliation query batch)' }] };
  }
  if (!isObject(parsed))
    return {
      problems: [
        { field: 'queries', reason: 'must be a JSON object of queries by their keys ({"q0": {...}})' },
      ],
    };
  const entries = Object.entries(parsed);
  if (entries.length === 0)
    return { problems: [{ field: 'queries', reason: 'must hold at least one query' }] };
  if (entries.length > maxBatchSize)
    return {
      problems: [
        { field: 'queries', reason: `must hold at most ${maxBatchSize} queries (the manifest's batchSize)` },
      ],
    };
  const problems: FieldError[] = [];
  const queries = entries
    .map(([key, query]) => parseQuery(key, query, problems))
    .filter((query): query is ReconcileQuery => query !== undefined);
  if (problems.length > 0) return { problems };
  return {
    problems,
    batch: {
      queries,
      match: {
        records: queries.map((query) => query.record),
        candidates: Math.max(...queries.map((query) => query.limit)),
      },
    },
  };
}

/** The matcher's features as the spec has them: `{id, value}` with a number or boolean value. */
export function featuresOf(candidate: MatcherCandidate): Feature[] {
  const features = Array.isArray(candidate.features) ? candidate.features : [];
  return features.filter(
    (feature): feature is Feature =>
      isObject(feature) &&
      typeof feature.id === 'string' &&
      (typeof feature.value === 'boolean' ||
        (typeof feature.value === 'number' && Number.isFinite(feature.value))),
  );
}

/** The matcher's confidence (0-1; its score before it had one) as a score of 0-100, two decimals. */
export function scoreOf(candidate: MatcherCandidate): number {
  const confidence = candidate.confidence ?? candidate.score;
  return Math.round(Math.min(1, Math.max(0, confidence)) * 10_000) / 100;
}

/** What tells namesakes apart: the reading, the prefecture and city. */
export function descriptionOf(
  company: { furigana: string | null; prefectureId: number | null; cityName: string | null },
  prefectureName: (id: number) => string | undefined,
): string | undefined {
  const place = [
    company.prefectureId === null ? undefined : prefectureName(company.prefectureId),
    company.cityName ?? undefined,
  ]
    .filter(Boolean)
    .join('');
  const parts = [company.furigana ?? undefined, place || undefined].filter(Boolean);
  return parts.length > 0 ? parts.join(' / ') : undefined;
}

/**
 * One query's result: its candidates, best first, `match` true only on the matcher's match.
 * A certain match withheld (`overMaxCredits`) has no candidates: nothing is named unpaid.
 */
export function resultOf(
  query: ReconcileQuery,
  result: MatchResult,
  prefectureName: (id: number) => string | undefined,
): { result: ReconcileCandidate[] } {
  const matched = result.match?.corporateNumber;
  return {
    result: result.candidates.slice(0, query.limit).map((candidate) => {
      const description = descriptionOf(candidate, prefectureName);
      return {
        id: candidate.corporateNumber,
        name: candidate.name,
        ...(description ? { description } : {}),
        type: [{ ...corporationType }],
        score: scoreOf(candidate as MatcherCandidate),
        match: candidate.corporateNumber === matched,
        features: featuresOf(candidate as MatcherCandidate),
      };
    }),
  };
}
