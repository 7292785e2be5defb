/**
 * The rows of the NTA's corporate-number download files (full files per prefecture and daily
 * diff files), as the NTA's published specification of the corporate-number download files
 * defines them: CSV without a header, 30 columns in the order below. `validateRow` checks one
 * row and gives every reason it is wrong, not only the first.
 *
 *   validateRow(['1', '7000012050002', '01', '0', '2015-10-05', ...30 fields])
 *   // { ok: true, row: { sequenceNumber: '1', corporateNumber: '7000012050002', process: '01', ... } }
 */
import { isValidCorporateNumber } from '../corporate-number.js';

export const registryColumns = [
  'sequenceNumber',
  'corporateNumber',
  'process',
  'correct',
  'updateDate',
  'changeDate',
  'name',
  'nameImageId',
  'kind',
  'prefectureName',
  'cityName',
  'streetNumber',
  'addressImageId',
  'prefectureCode',
  'cityCode',
  'postCode',
  'addressOutside',
  'addressOutsideImageId',
  'closeDate',
  'closeCause',
  'successorCorporateNumber',
  'changeCause',
  'assignmentDate',
  'latest',
  'enName',
  'enPrefectureName',
  'enCityName',
  'enAddressOutside',
  'furigana',
  'hihyoji',
] as const;

export type RegistryColumn = (typeof registryColumns)[number];
export type RegistryRow = Record<RegistryColumn, string>;

/** 処理区分 */
export const processCodes = {
  '01': 'new',
  '11': 'trade name change',
  '12': 'domestic address change',
  '13': 'foreign address change',
  '21': 'closure',
  '22': 'closure cancelled',
  '71': 'absorbed in a merger',
  '72': 'merger annulled',
  '81': 'trade name erased',
  '99': 'deleted',
} as const;
export type ProcessCode = keyof typeof processCodes;

/** 法人種別 -> the API's corporateType enum (openapi.yaml CorporateType). */
export const kindToCorporateType = {
  '101': 'national_org',
  '201': 'local_gov',
  '301': 'kabushiki_gaisha',
  '302': 'yugen_gaisha',
  '303': 'gomei_gaisha',
  '304': 'goshi_gaisha',
  '305': 'godo_gaisha',
  '399': 'other',
  '401': 'foreign_company',
  '499': 'other',
} as const;

/** 登記記録の閉鎖等の事由 */
export const closeCauses = {
  '01': 'liquidation completed',
  '11': 'dissolved by merger',
  '21': 'closed by the registrar',
  '31': 'other',
} as const;

const dateColumns = ['updateDate', 'changeDate', 'assignmentDate'] as const;
const optionalDateColumns = ['closeDate'] as const;

/** A calendar date written YYYY-MM-DD (2015-02-30 is not one). */
export function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

export type RowCheck = { ok: true; row: RegistryRow } | { ok: false; reasons: string[] };

/** Every reason one row cannot be applied; a row with the wrong column count is not read further. */
export function validateRow(fields: readonly string[]): RowCheck {
  if (fields.length !== registryColumns.length)
    return { ok: false, reasons: [`row has ${fields.length} columns, expected ${registryColumns.length}`] };
  const row = Object.fromEntries(
    registryColumns.map((column, i) => [column, fields[i] ?? '']),
  ) as RegistryRow;
  const reasons: string[] = [];
  if (!/^\d+$/.test(row.sequenceNumber)) reasons.push('sequenceNumber: must be a whole number');
  if (!isValidCorporateNumber(row.corporateNumber))
    reasons.push('corporateNumber: must be 13 digits with a valid check digit');
  if (!(row.process in processCodes))
    reasons.push(
      `process: ${row.process || '(empty)'} is not a process code (${Object.keys(processCodes).sort().join(', ')})`,
    );
  if (row.correct !== '0' && row.correct !== '1') reasons.push('correct: must be 0 or 1');
  if (row.latest !== '0' && row.latest !== '1') reasons.push('latest: must be 0 or 1');
  if (row.hihyoji !== '' && row.hihyoji !== '0' && row.hihyoji !== '1')
    reasons.push('hihyoji: must be 0, 1 or empty');
  for (const column of dateColumns)
    if (!isDate(row[column])) reasons.push(`${column}: must be a date YYYY-MM-DD`);
  for (const column of optionalDateColumns)
    if (row[column] !== '' && !isDate(row[column]))
      reasons.push(`${column}: must be empty or a date YYYY-MM-DD`);
  if (row.name.trim() === '') reasons.push('name: must not be empty');
  else if (row.name.length > 300) reasons.push('name: longer than 300 characters');
  if (!(row.kind in kindToCorporateType))
    reasons.push(
      `kind: ${row.kind || '(empty)'} is not a kind code (${Object.keys(kindToCorporateType).join(', ')})`,
    );
  if (row.prefectureCode !== '') {
    const code = Number(row.prefectureCode);
    if (!/^\d{2}$/.test(row.prefectureCode) || code < 1 || code > 47)
      reasons.push('prefectureCode: must be empty or a JIS prefecture code 01-47');
  }
  if (row.cityCode !== '' && !/^\d{3}$/.test(row.cityCode))
    reasons.push('cityCode: must be empty or 3 digits');
  if (row.postCode !== '' && !/^\d{7}$/.test(row.postCode))
    reasons.push('postCode: must be empty or 7 digits');
  if (row.closeCause !== '' && !(row.closeCause in closeCauses))
    reasons.push(
      `closeCause: ${row.closeCause} is not a close cause (${Object.keys(closeCauses).join(', ')})`,
    );
  if (row.successorCorporateNumber !== '' && !isValidCorporateNumber(row.successorCorporateNumber))
    reasons.push('successorCorporateNumber: must be empty or 13 digits with a valid check digit');
  return reasons.length > 0 ? { ok: false, reasons } : { ok: true, row };
}
