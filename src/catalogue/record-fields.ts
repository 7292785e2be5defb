/**
 * The fields of each search's records, as data: every top-level property of the index's mapping
 * (mappings/*.json) except the internal ones, which the engine keeps for the service (copies,
 * keys, stored JSON) and no record shows. A field added to a mapping appears in the records,
 * in `fields`, in the public catalogue and in openapi.yaml without a change here.
 *
 *   recordFieldNames.corporates // ['corporateNumber', 'name', 'furigana', ..., 'workplace']
 *   recordFieldNames.jobs       // ['id', 'corporateNumber', ..., 'descriptionSnippets']
 */
import { mappingFields } from '../opensearch/mappings.js';
import { gbizinfoKinds } from './gbizinfo-kinds.js';

/** The opening excerpt of a posting's detail text (src/search/opening.ts). */
export const openingField = 'descriptionOpening';

function topLevelFields(index: string, without: string[]): string[] {
  return mappingFields(index).filter((field) => !without.includes(field));
}

/**
 * The field holding a compact copy of the response record, in corporates and in jobs: the
 * record's JSON text (src/search/record-text.ts), base64 in binary doc values, which a search reads with
 * `docvalue_fields` and `stored_fields: _none_`, so the engine never decompresses `_source` (a
 * company's nested postings, a posting's text) to answer, and the API splices the text into
 * its answer without parsing it (docs/decisions/record-copies.md). Written with the record
 * (indexer/batch-plan.ts), or for a document written before the field by `npm run backfill`
 * (ops/backfill-copies.ts); what the rebuild changes afterwards is read from its own doc
 * values: a company's `workLocationCount` and `updatedAt` (the copy's `updatedAt` gives the
 * text when it is still the same instant), a posting's `corporateName` and `updatedAt` (moved
 * by the fan-out of a company rename, indexer/rebuild.ts). A copy of an earlier
 * layout (the picked fields' JSON, written before the copies were the record's text, or before
 * a record field was added) is still read, by parsing it.
 *
 *   toCompactRecord({ corporateNumber: '1010001000001', name: '株式会社A', ..., updatedAt: '2026-11-21T03:00:00.000Z' })
 *   // base64 of '{"corporateNumber":"1010001000001","name":"株式会社A",...,"_layout":"3f2a9c01d4e7"}'
 */
export const compactRecordField = 'compactRecord';

/** Corporates fields that are not part of the response records (docs/index-documents.md). */
export const internalCorporateFields = [
  'postings',
  'aggregates',
  'sourceVersion',
  compactRecordField,
  // what matching reads of a company, in one doc value (src/names/card.ts)
  'matchCard',
  // the name keys of match and suggest (indexer/name-keys.ts)
  'nameKey',
  'spokenKey',
  'readingKey',
  'romajiKey',
  'readingSource',
  'nameKeyLength',
  // the evidence keys of match (indexer/name-keys.ts evidenceKeyFields)
  'phoneKey',
  'websiteHost',
  // the registry's own fields (indexer/registry/); the record has what customers use of them
  // (closed, closedOn, closeReason, successorCorporateNumber, top-level fields)
  'registry',
  // the registry's former names and their name keys, for match and suggest
  'formerNames',
  'formerNameKeys',
  // the record's hiringActivity as its JSON text, for the spliced records
  'hiringActivityRecord',
  // the invoice registration's stored JSON (the record's `invoice` is built from it) and the
  // register's date of the last row applied (indexer/invoice/write.ts)
  'invoiceRecord',
  'invoiceUpdatedOn',
  // gBizINFO's summaries as JSON text (the record's `subsidies`, `workplace`, …; indexer/gbizinfo/)
  ...gbizinfoKinds.map((kind) => `${kind}Record`),
];
const corporateFields = topLevelFields('corporates', internalCorporateFields);
/** Jobs fields that are not part of the response records (docs/index-documents.md). */
export const internalJobFields = [
  'description',
  'descriptionCollectedAt',
  // the snippets' opening excerpt (src/search/opening.ts)
  openingField,
  'corporate',
  compactRecordField,
];
const jobFields = topLevelFields('jobs', internalJobFields);
/** The fields of the response records, as `fields: [...]` may name them. */
export const recordFieldNames = {
  corporates: corporateFields,
  jobs: [...jobFields, 'descriptionSnippets'],
} as const;
