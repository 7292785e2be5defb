/**
 * One valid registry row -> what the importer does to the company.
 *
 * Worked example (a diff row: a kabushiki kaisha renamed, still open):
 *   "12","2010401000001","11","0","2024-04-01","2024-03-25","株式会社ＡＢＣホールディングス","","301",
 *   "東京都","千代田区","丸の内１－１－１","","13","101","1000005","","","","","","","2015-10-05","1",
 *   "ABC Holdings Co., Ltd.","","","","エービーシーホールディングス","0"
 *   -> { action: 'upsert', outcome: 'upserted', corporateNumber: '2010401000001', correction: false,
 *        fields: { name: '株式会社ＡＢＣホールディングス', corporateType: 'kabushiki_gaisha',
 *                  prefectureId: 13, cityName: '千代田区', streetAddress: '丸の内１－１－１',
 *                  postalCode: '100-0005', furigana: 'エービーシーホールディングス' },
 *        registry: { assignmentDate: '2015-10-05', updateDate: '2024-04-01', changeDate: '2024-03-25',
 *                    process: '11', closed: false, closeDate: null, closeCause: null,
 *                    successorCorporateNumber: null, enName: 'ABC Holdings Co., Ltd.', kind: '301' } }
 *
 * A `latest=0` row of the same company -> { action: 'history', name, changeDate, updateDate, ... }:
 * not applied; its name may be a former name (./former-names.ts).
 *
 * Names are kept as published (full-width Latin included): the index folds them (NFKC) when
 * it analyses them, and a name shown back is the registry's own spelling.
 */
import { kindToCorporateType, type ProcessCode, type RegistryRow } from './format.js';

/** The company fields the registry owns (docs/index-documents.md, "Who writes which field"). */
export interface RegistryOwnedFields {
  name: string;
  furigana: string | null;
  corporateType: string;
  postalCode: string | null;
  prefectureId: number | null;
  cityName: string | null;
  streetAddress: string | null;
}

/** The registry-only fields, kept under `registry` in the corporates document (internal). */
export interface RegistryFields {
  assignmentDate: string;
  updateDate: string;
  changeDate: string;
  process: ProcessCode;
  closed: boolean;
  closeDate: string | null;
  closeCause: string | null;
  successorCorporateNumber: string | null;
  enName: string | null;
  kind: string;
}

export const registryOwnedFieldNames: (keyof RegistryOwnedFields)[] = [
  'name',
  'furigana',
  'corporateType',
  'postalCode',
  'prefectureId',
  'cityName',
  'streetAddress',
];

/**
 * What the Corporate record says of a closed company (openapi.yaml, Corporate): the registry's
 * close cause as a word, else what the process says (absorbed in a merger, trade name erased).
 */
export type CloseReason =
  | 'liquidationCompleted'
  | 'dissolvedByMerger'
  | 'closedByRegistrar'
  | 'tradeNameErased'
  | 'other';

const closeReasonByCause: Record<string, CloseReason> = {
  '01': 'liquidationCompleted',
  '11': 'dissolvedByMerger',
  '21': 'closedByRegistrar',
  '31': 'other',
};

/** The record's close fields: set only while the company is closed. */
export interface ClosedFields {
  closed: boolean;
  closedOn: string | null;
  closeReason: CloseReason | null;
  successorCorporateNumber: string | null;
}

/**
 *   {process: '71', closed: true, closeDate: '2026-11-01', closeCause: '11', successor: '1...'}
 *   -> {closed: true, closedOn: '2026-11-01', closeReason: 'dissolvedByMerger', successorCorporateNumber: '1...'}
 */
export function closedFieldsOf(registry: RegistryFields): ClosedFields {
  if (!registry.closed)
    return { closed: false, closedOn: null, closeReason: null, successorCorporateNumber: null };
  const byProcess: CloseReason | null =
    registry.process === '71' ? 'dissolvedByMerger' : registry.process === '81' ? 'tradeNameErased' : null;
  return {
    closed: true,
    closedOn: registry.closeDate,
    closeReason: (registry.closeCause ? closeReasonByCause[registry.closeCause] : undefined) ?? byProcess,
    successorCorporateNumber: registry.successorCorporateNumber,
  };
}

/** What the record shows of the register beyond the shared fields and the close fields. */
export interface RegisterRecordFields extends ClosedFields {
  registeredOn: string;
  englishName: string | null;
}

/**
 *   {assignmentDate: '2015-10-05', enName: 'ABC Holdings Co., Ltd.', closed: false, ...}
 *   -> {registeredOn: '2015-10-05', englishName: 'ABC Holdings Co., Ltd.', closed: false, closedOn: null, ...}
 */
export function recordFieldsOf(registry: RegistryFields): RegisterRecordFields {
  return { ...closedFieldsOf(registry), registeredOn: registry.assignmentDate, englishName: registry.enName };
}

/**
 * A `latest=0` row: a state of the company that a later row replaced. Not applied; its name,
 * when it is not the current one, is one of the company's former names (./write.ts).
 */
export interface HistoryRow {
  action: 'history';
  corporateNumber: string;
  name: string;
  changeDate: string;
  updateDate: string;
  /** a correction (correct=1): the state it replaces was an error, not a name the company had */
  correction: boolean;
}

/** How a row is counted in the summary, when it is applied. */
export type RowOutcome = 'upserted' | 'closed' | 'restored' | 'deleted';

export type RegistryChange =
  | {
      action: 'upsert';
      corporateNumber: string;
      outcome: Exclude<RowOutcome, 'deleted'>;
      fields: RegistryOwnedFields;
      registry: RegistryFields;
      /** correct=1: the name this row replaces was an error, not a former name */
      correction: boolean;
    }
  | HistoryRow
  | { action: 'delete'; corporateNumber: string; outcome: 'deleted'; updateDate: string }
  /** history (latest=0) and hidden companies (hihyoji=1): read, not applied */
  | { action: 'skip'; corporateNumber: string; why: 'history' | 'hidden' };

/** Processes after which the company is closed: closure, absorbed in a merger, trade name erased. */
const closing = new Set<ProcessCode>(['21', '71', '81']);
/** Processes that reopen it: closure cancelled, merger annulled. */
const reopening = new Set<ProcessCode>(['22', '72']);

const orNull = (value: string): string | null => (value.trim() === '' ? null : value);

export function toRegistryChange(row: RegistryRow): RegistryChange {
  const corporateNumber = row.corporateNumber;
  // a row that is not the latest is history: a later row of the same company supersedes it;
  // it is not applied, but its name is kept as a former name (./write.ts)
  if (row.latest !== '1')
    return {
      action: 'history',
      corporateNumber,
      name: row.name,
      changeDate: row.changeDate,
      updateDate: row.updateDate,
      correction: row.correct === '1',
    };
  const process = row.process as ProcessCode;
  if (process === '99')
    return { action: 'delete', corporateNumber, outcome: 'deleted', updateDate: row.updateDate };
  // the company asked not to be shown in search results: it is not written (docs/decisions/registry-import.md)
  if (row.hihyoji === '1') return { action: 'skip', corporateNumber, why: 'hidden' };
  // every row carries the company's whole current state, so each one sets every owned field;
  // closed: the row's own process, else a close date that a reopening did not clear
  const closed = closing.has(process) || (!reopening.has(process) && row.closeDate !== '');
  const outcome = closing.has(process) ? 'closed' : reopening.has(process) ? 'restored' : 'upserted';
  const domestic = row.prefectureCode !== '';
  return {
    action: 'upsert',
    corporateNumber,
    outcome,
    correction: row.correct === '1',
    fields: {
      name: row.name,
      furigana: orNull(row.furigana),
      corporateType: kindToCorporateType[row.kind as keyof typeof kindToCorporateType],
      postalCode: row.postCode === '' ? null : `${row.postCode.slice(0, 3)}-${row.postCode.slice(3)}`,
      // JIS X 0401 code = the prefecture master's id (data/masters/prefectures.json)
      prefectureId: domestic ? Number(row.prefectureCode) : null,
      cityName: orNull(row.cityName),
      // a company with only a foreign address (foreign companies) keeps it as its street address
      streetAddress: orNull(row.streetNumber) ?? orNull(row.addressOutside),
    },
    registry: {
      assignmentDate: row.assignmentDate,
      updateDate: row.updateDate,
      changeDate: row.changeDate,
      process,
      closed,
      closeDate: closed ? orNull(row.closeDate) : null,
      closeCause: closed ? orNull(row.closeCause) : null,
      successorCorporateNumber: orNull(row.successorCorporateNumber),
      enName: orNull(row.enName),
      kind: row.kind,
    },
  };
}
