/**
 * Documents -> response records (the shared shapes): every top-level property of the index
 * mapping except the internal ones, absent values as null, lists as [] and counts as 0.
 * The field lists are read from mappings/*.json, so a field added there appears in the
 * records without a change here.
 *
 *   corporates doc { corporateNumber: '1010001000001', name: '株式会社A', markets: [] , postings: [...] }
 *   -> { corporateNumber: '1010001000001', name: '株式会社A', furigana: null, ..., markets: [],
 *        paidMedias: [], workLocationCount: 0, summary: null }
 */
import { mappingFields } from '../opensearch/mappings.js';
import { toSnippets } from './snippets.js';

type Doc = Record<string, unknown>;

function topLevelFields(index: string, without: string[]): string[] {
  return mappingFields(index).filter((field) => !without.includes(field));
}

const corporateFields = topLevelFields('corporates', ['postings', 'aggregates', 'sourceVersion']);
const jobFields = topLevelFields('jobs', ['description', 'descriptionCollectedAt', 'corporate']);
const listFields = new Set(['markets', 'paidMedias']);
const workLocationFields = ['kind', 'prefectureId', 'cityName', 'address'] as const;

/** The fields of the response records, as `fields: [...]` may name them. */
export const recordFieldNames = {
  corporates: corporateFields,
  jobs: [...jobFields, 'descriptionSnippets'],
} as const;

/** Keeps only the requested fields, in the record's own order. */
export function selectFields(record: Doc, fields: readonly string[] | undefined): Doc {
  if (!fields) return record;
  return Object.fromEntries(Object.entries(record).filter(([field]) => fields.includes(field)));
}

function pick(doc: Doc, fields: string[]): Doc {
  return Object.fromEntries(fields.map((field) => [field, doc[field] ?? null]));
}

export function toCorporateRecord(doc: Doc): Doc {
  const record = pick(doc, corporateFields);
  for (const field of listFields) record[field] = Array.isArray(doc[field]) ? doc[field] : [];
  record.workLocationCount = typeof doc.workLocationCount === 'number' ? doc.workLocationCount : 0;
  return record;
}

export function toJobRecord(doc: Doc, highlight?: Record<string, string[]>): Doc {
  const record = pick(doc, jobFields);
  const location = doc.workLocation as Doc | null | undefined;
  record.workLocation = location ? pick(location, [...workLocationFields]) : null;
  record.descriptionSnippets = toSnippets(highlight);
  return record;
}

/** GET /jobs/{jobId}/detail from a `job-details` document. */
export function toJobDetail(id: string, doc: Doc): Doc {
  return {
    id,
    corporateNumber: doc.corporateNumber ?? null,
    description: doc.description ?? null,
    descriptionCollectedAt: doc.descriptionCollectedAt ?? null,
  };
}
