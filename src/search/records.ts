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

import {
  type GbizinfoKind,
  gbizinfoKinds,
  listedItemKeys,
  summaryKeys,
} from '../catalogue/gbizinfo-kinds.js';
import {
  compactRecordField,
  internalCorporateFields,
  internalJobFields,
  openingField,
  recordFieldNames,
} from '../catalogue/record-fields.js';
import type { SearchIndex } from '../catalogue/searches.js';
import { mappingFields } from '../opensearch/mappings.js';
import { japanDay } from '../text/japan-day.js';
import {
  asByteText,
  type ByteText,
  byteTextOf,
  type CopyHit,
  type CopyLayout,
  defineLayout,
  type HitFields,
  isLayoutCopy,
  spliceRecord,
  spliceSteps,
  writeCopy,
} from './record-text.js';
import { openingHighlight, openingOf, snippetsOf } from './snippets.js';

export type { HitFields } from './record-text.js';

type Doc = Record<string, unknown>;

/**
 * Both indices' internal fields: a fetch of `_source` in place of the copy does not know which
 * index it searches, and no field is internal in one and a record field in the other.
 */
const internalFields = [...new Set([...internalCorporateFields, ...internalJobFields])];
/** A posting document's record fields (its snippets are made, not stored). */
const jobFields = recordFieldNames.jobs.filter((field) => field !== 'descriptionSnippets');
const listFields = new Set(['markets', 'paidMedias']);
const workLocationFields = ['kind', 'prefectureId', 'cityName', 'address'] as const;

/** Keeps only the requested fields, in the record's own order. */
export function selectFields(record: Doc, fields: readonly string[] | undefined): Doc {
  if (!fields) return record;
  return Object.fromEntries(Object.entries(record).filter(([field]) => fields.includes(field)));
}

function pick(doc: Doc, fields: string[]): Doc {
  return Object.fromEntries(fields.map((field) => [field, doc[field] ?? null]));
}

/**
 * Key order of the objects in a company's lists: the order the API has always answered with
 * (the engine's, once a partial update has rewritten the document), whatever order the
 * document or its compact copy was written in.
 */
const listObjectKeys: Record<string, string[]> = {
  markets: ['code', 'name', 'exchangeCode'],
  paidMedias: ['mediaId', 'mediaName'],
};

/** `hiringActivity` in the order the rebuild writes it (the mapping's), as the spliced text has it. */
const activityKeys = mappingFields('corporates', 'hiringActivity');
const mediumKeys = ['mediaId', 'openPostings', 'firstSeenOn', 'lastSeenOn'];

function activityInKeyOrder(activity: unknown): unknown {
  if (!activity || typeof activity !== 'object') return null;
  const ordered = inKeyOrder(activity, activityKeys) as Doc;
  if (Array.isArray(ordered.media))
    ordered.media = ordered.media.map((medium) => inKeyOrder(medium, mediumKeys));
  return ordered;
}

function inKeyOrder(item: unknown, keys: readonly string[]): unknown {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
  const object = item as Doc;
  const ordered: Doc = {};
  for (const key of keys) if (key in object) ordered[key] = object[key];
  for (const [key, value] of Object.entries(object)) if (!(key in ordered)) ordered[key] = value;
  return ordered;
}

/** A company's invoice registration as the index keeps it (indexer/invoice/format.ts). */
interface StoredInvoice {
  registrationNumber: string;
  registeredOn: string;
  endedOn: string | null;
  endReason: string | null;
  updatedOn: string;
}

/**
 * The record's `invoice`: the stored registration with `registered`, whether it counts on
 * `today` (a day in Japan): registered on or before it, and not ended (cancelled or expired)
 * on or before it. null for a company the invoice register has no row of.
 *
 *   invoiceRecordOf({ registrationNumber: 'T8010001000001', registeredOn: '2023-10-01', endedOn: '2026-12-01', ... }, '2026-11-30')
 *   // { registrationNumber: 'T8010001000001', registered: true, registeredOn: '2023-10-01', endedOn: '2026-12-01', ... }
 */
export function invoiceRecordOf(stored: unknown, today: string): Doc | null {
  if (!stored || typeof stored !== 'object') return null;
  const invoice = stored as StoredInvoice;
  return {
    registrationNumber: invoice.registrationNumber,
    registered: invoice.registeredOn <= today && (invoice.endedOn === null || invoice.endedOn > today),
    registeredOn: invoice.registeredOn,
    endedOn: invoice.endedOn ?? null,
    endReason: invoice.endReason ?? null,
    updatedOn: invoice.updatedOn,
  };
}

/**
 * A gBizINFO summary (indexer/gbizinfo/, src/catalogue/gbizinfo-kinds.ts: `<kind>` in the record,
 * `<kind>Record` its doc value) in the record's key order, a certification's or award's
 * entries too.
 */
function summaryInKeyOrder(summary: unknown, kind: GbizinfoKind): Doc | null {
  if (!summary || typeof summary !== 'object') return null;
  const ordered = inKeyOrder(summary, summaryKeys[kind]) as Doc;
  if (Array.isArray(ordered.items))
    ordered.items = ordered.items.map((item) => inKeyOrder(item, listedItemKeys));
  return ordered;
}

/** A kind's summary from its doc value (base64 JSON), undefined without one. */
function summaryOfFields(fields: HitFields | undefined, kind: string): unknown {
  const value = fields?.[`${kind}Record`]?.[0];
  return typeof value === 'string' ? JSON.parse(copyText(value)) : undefined;
}

/** The stored registration of a hit's `invoiceRecord` doc value (base64 JSON), undefined without one. */
function invoiceOfFields(fields: HitFields | undefined): unknown {
  const value = fields?.[invoiceRecordField]?.[0];
  return typeof value === 'string' ? JSON.parse(copyText(value)) : undefined;
}

export function toCorporateRecord(doc: Doc): Doc {
  const record = pick(doc, recordFieldNames.corporates);
  for (const field of listFields) {
    const list = doc[field];
    const keys = listObjectKeys[field] ?? [];
    record[field] = Array.isArray(list) ? list.map((item) => inKeyOrder(item, keys)) : [];
  }
  record.workLocationCount = typeof doc.workLocationCount === 'number' ? doc.workLocationCount : 0;
  record.hiringActivity = activityInKeyOrder(doc.hiringActivity);
  record.invoice = invoiceRecordOf(doc.invoice, japanDay(new Date()));
  for (const kind of gbizinfoKinds) record[kind] = summaryInKeyOrder(doc[kind], kind);
  // open unless the registry says closed (companies it has not loaded, and copies written before the field)
  record.closed = doc.closed === true;
  return record;
}

/**
 * The compact copy of a company's record fields (`toCorporateFields` of the indexer, and
 * `updatedAt`): the record's text but `workLocationCount`.
 */
export function toCompactRecord(fields: Doc): string {
  return toBase64(writeCopy(corporateCopyLayout, toCorporateRecord(fields)));
}

/** The compact copy of a posting's record: its text but `corporateName` and the snippets. */
export function toCompactJobRecord(job: Doc): string {
  return toBase64(writeCopy(jobCopyLayout, toJobRecord(job)));
}

/**
 * The binary field takes and gives base64. Kept binary rather than a keyword holding the text:
 * keyword doc values of texts this long cost the engine several times more per hit to fetch
 * (docs/decisions/record-copies.md); decoding base64 here is cheap.
 */
function toBase64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** A copy's JSON text. */
function copyText(copy: string): string {
  return Buffer.from(copy, 'base64').toString('utf8');
}

/**
 * A record's `updatedAt` as JSON text: the copy's text while the doc value is the same instant,
 * else that instant (a company rebuild, or the fan-out of a company rename, moved it).
 */
function checkedUpdatedAt(stored: string, hit: CopyHit): string {
  const millis = hit.fields?.updatedAt?.[0];
  if (millis === undefined) return 'null';
  // an instant's JSON text has no escapes: its characters between the quotes are the string
  const copied = stored.startsWith('"') && !stored.includes('\\') ? stored.slice(1, -1) : undefined;
  return copied !== undefined && Date.parse(copied) === Number(millis)
    ? stored
    : JSON.stringify(new Date(Number(millis)).toISOString());
}

const activityRecordField = 'hiringActivityRecord';
const invoiceRecordField = 'invoiceRecord';

/**
 * The company copy's layout: the record but `workLocationCount` and `hiringActivity` (the
 * rebuild's). `hiringActivity` came after copies of the layout were written: never stored, so
 * their text is the same and they are still spliced.
 */
const corporateCopyLayout: CopyLayout = defineLayout(
  recordFieldNames.corporates,
  {
    workLocationCount: (hit) => {
      const count = hit.fields?.workLocationCount?.[0];
      return JSON.stringify(typeof count === 'number' ? count : 0);
    },
    hiringActivity: (hit) => activityText(hit.fields) ?? 'null',
    invoice: (hit) => {
      const stored = invoiceOfFields(hit.fields);
      // "registered now" needs today only for a company with a registration
      return stored === undefined ? 'null' : JSON.stringify(invoiceRecordOf(stored, japanDay(new Date())));
    },
    ...Object.fromEntries(
      gbizinfoKinds.map((kind) => [
        kind,
        (hit: CopyHit) => JSON.stringify(summaryInKeyOrder(summaryOfFields(hit.fields, kind), kind)),
      ]),
    ),
  },
  { updatedAt: checkedUpdatedAt },
  Object.fromEntries([...listFields].map((field) => [field, mappingFields('corporates', field)])),
  ['hiringActivity', 'invoice', ...gbizinfoKinds],
);

/**
 * The company's `hiringActivity` as JSON text, from its doc value `hiringActivityRecord` (the
 * text the rebuild wrote, indexer/hiring-activity.ts); undefined when the company has none.
 */
function activityText(fields: HitFields | undefined): string | undefined {
  const value = fields?.[activityRecordField]?.[0];
  return typeof value === 'string' ? copyText(value) : undefined;
}

/**
 * The posting copy's layout: the record but `corporateName` (the rebuild's) and the snippets;
 * `updatedAt` checked against its doc value, which the fan-out of a company rename moves. The
 * check was added after copies of this layout were written: their text is the same, so it is
 * left out of the layout's name and they are still spliced.
 */
const jobCopyLayout: CopyLayout = defineLayout(
  recordFieldNames.jobs,
  {
    corporateName: (hit) => JSON.stringify(hit.fields?.corporateName?.[0] ?? null),
    descriptionSnippets: (hit) => JSON.stringify(snippetsOf(hit)),
  },
  { updatedAt: checkedUpdatedAt },
  { workLocation: workLocationFields },
  ['updatedAt'],
);

/** True when `copy` (base64, as stored) is of the layout searches splice (not an earlier one). */
export function isCurrentCopy(index: 'jobs' | 'corporates', copy: string): boolean {
  return isLayoutCopy(recordReaders[index].layout, copyText(copy));
}

/**
 * A search's hit -> its record's JSON text as byte text (./record-text.ts), the bytes of
 * `JSON.stringify` of `selectFields(corporateRecordOf(hit), fields)`: spliced from the copy's
 * bytes, else (no copy, or a copy of an earlier layout) built as an object.
 */
export function corporateRecordTexts(
  fields: readonly string[] | undefined,
): (hit: EngineHitLike) => ByteText {
  return recordTexts(corporateCopyLayout, corporateRecordOf, fields);
}

/** The same for job hits (`jobRecordOf`). */
export function jobRecordTexts(fields: readonly string[] | undefined): (hit: EngineHitLike) => ByteText {
  return recordTexts(jobCopyLayout, jobRecordOf, fields);
}

function recordTexts(
  layout: CopyLayout,
  recordOf: (hit: EngineHitLike) => Doc,
  fields: readonly string[] | undefined,
): (hit: EngineHitLike) => ByteText {
  const steps = spliceSteps(layout, fields);
  return (hit) => {
    const copy = hit.fields?.[compactRecordField]?.[0];
    const text =
      typeof copy === 'string'
        ? spliceRecord(layout, steps, byteTextOf(Buffer.from(copy, 'base64')), hit)
        : undefined;
    return text ?? asByteText(JSON.stringify(selectFields(recordOf(hit), fields)));
  };
}

type EngineHitLike = CopyHit & { _source?: Doc };

/** What a company search fetches instead of `_source`: the copy and the rebuilt fields' doc values. */
export const compactFetch = {
  _source: false,
  // no stored field either: `_id` lives in the same compressed block as `_source`
  stored_fields: ['_none_'],
  docvalue_fields: [
    compactRecordField,
    'workLocationCount',
    activityRecordField,
    invoiceRecordField,
    ...gbizinfoKinds.map((kind) => `${kind}Record` as const),
    { field: 'updatedAt', format: 'epoch_millis' },
  ],
} as const;

/**
 * What a job search fetches instead of `_source`. A search that highlights the detail text
 * still reads that text from `_source` (the highlighter's own lookup), the record still from
 * the copy.
 */
export const compactJobFetch = {
  _source: false,
  stored_fields: ['_none_'],
  docvalue_fields: [compactRecordField, 'corporateName', { field: 'updatedAt', format: 'epoch_millis' }],
} as const;

/** True when a hit of a compact fetch carries no copy (a document written before the field). */
export function lacksCompactRecord(fields: HitFields | undefined): boolean {
  return typeof fields?.[compactRecordField]?.[0] !== 'string';
}

/** The copy as an object (any layout: the record fields are picked by name). */
function decodeCopy(fields: HitFields): Doc {
  return JSON.parse(copyText(String(fields[compactRecordField]?.[0]))) as Doc;
}

/**
 * The record from a compact fetch's hit, equal to `toCorporateRecord` of the same document's
 * `_source`. `updatedAt`: the copy's text while it is the instant the document holds, else
 * (a rebuild moved it) that instant as `Date#toISOString()`, which is how the rebuild writes it.
 */
export function corporateRecordFromFields(fields: HitFields): Doc {
  const copy = decodeCopy(fields);
  const updatedAt = liveUpdatedAt(copy, fields);
  const activity = activityText(fields);
  return toCorporateRecord({
    ...copy,
    workLocationCount: fields.workLocationCount?.[0],
    hiringActivity: activity === undefined ? null : JSON.parse(activity),
    invoice: invoiceOfFields(fields) ?? null,
    ...Object.fromEntries(gbizinfoKinds.map((kind) => [kind, summaryOfFields(fields, kind) ?? null])),
    updatedAt,
  });
}

/** `updatedAt` of a compact fetch's hit, the object form of `checkedUpdatedAt`. */
function liveUpdatedAt(copy: Doc, fields: HitFields): unknown {
  const millis = fields.updatedAt?.[0];
  if (millis === undefined) return null;
  return typeof copy.updatedAt === 'string' && Date.parse(copy.updatedAt) === Number(millis)
    ? copy.updatedAt
    : new Date(Number(millis)).toISOString();
}

/** A company hit -> its record: from the compact copy, else (a fetch of `_source`) from `_source`. */
export function corporateRecordOf(hit: { _source?: Doc; fields?: HitFields }): Doc {
  return lacksCompactRecord(hit.fields)
    ? toCorporateRecord(hit._source ?? {})
    : corporateRecordFromFields(hit.fields as HitFields);
}

/**
 * A fetch some of whose hits lack what it read from doc values, as the fetch that answers
 * them (the same hits: the same query, sort and page, or point in time); undefined when
 * nothing is missing. A hit without its copy: the page from `_source`. A hit without its
 * opening excerpt (`descriptionOpening`, written before the field or left to the highlighter,
 * ./opening.ts): the page with the highlighter's opening instead, as searches asked before.
 */
export function sourceFetchFor(
  body: Record<string, unknown> | undefined,
  hits: readonly { fields?: HitFields }[],
): Record<string, unknown> | undefined {
  const fetched = body?.docvalue_fields;
  if (!Array.isArray(fetched)) return undefined;
  const lacksCopy =
    fetched.includes(compactRecordField) && hits.some((hit) => lacksCompactRecord(hit.fields));
  const readsOpening = fetched.includes(openingField);
  const lacksOpening = readsOpening && hits.some((hit) => openingOf(hit.fields) === undefined);
  if (!lacksCopy && !lacksOpening) return undefined;
  const { stored_fields: stored, docvalue_fields: _docvalues, ...rest } = body as Record<string, unknown>;
  const highlight = readsOpening ? { highlight: openingHighlight } : {};
  if (lacksCopy) return { ...rest, _source: { excludes: internalFields }, ...highlight };
  const others = fetched.filter((field) => field !== openingField);
  return {
    ...rest,
    stored_fields: stored,
    ...(others.length > 0 ? { docvalue_fields: others } : {}),
    ...highlight,
  };
}

export function toJobRecord(doc: Doc, highlight?: Record<string, string[]>, fields?: HitFields): Doc {
  const record = pick(doc, jobFields);
  const location = doc.workLocation as Doc | null | undefined;
  record.workLocation = location ? pick(location, [...workLocationFields]) : null;
  record.descriptionSnippets = snippetsOf({ fields, ...(highlight ? { highlight } : {}) });
  return record;
}

/** A job hit -> its record: from the compact copy, else (a fetch of `_source`) from `_source`. */
export function jobRecordOf(hit: {
  _source?: Doc;
  fields?: HitFields;
  highlight?: Record<string, string[]>;
}): Doc {
  if (lacksCompactRecord(hit.fields)) return toJobRecord(hit._source ?? {}, hit.highlight, hit.fields);
  const fields = hit.fields as HitFields;
  const copy = decodeCopy(fields);
  return toJobRecord(
    { ...copy, corporateName: fields.corporateName?.[0] ?? null, updatedAt: liveUpdatedAt(copy, fields) },
    hit.highlight,
    fields,
  );
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

/** What differs between the two searches' records, by index: read one, its text, its copy's layout. */
export const recordReaders: Readonly<
  Record<
    SearchIndex,
    {
      record: (hit: EngineHitLike & { _source?: Doc; fields?: HitFields }) => Doc;
      /** The records' JSON text as byte text (./record-text.ts), the way a search answer is built. */
      texts: (fields: readonly string[] | undefined) => (hit: EngineHitLike) => ByteText;
      layout: CopyLayout;
    }
  >
> = {
  corporates: { record: corporateRecordOf, texts: corporateRecordTexts, layout: corporateCopyLayout },
  jobs: { record: jobRecordOf, texts: jobRecordTexts, layout: jobCopyLayout },
};
