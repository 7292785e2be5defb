/**
 * An uploaded row -> a match record, checked as POST /corporates/match checks a record (the
 * `MatchRecord` schema of openapi.yaml, compiled once), or the reason it is refused.
 *
 *   CSV header `会社名,都道府県,電話番号,メモ` -> columns name, prefectureId (by name), phoneNumber
 *   (メモ is kept in the results, not matched on)
 *   row `㈱マルカ物流,神奈川県,045-000-0000,x` -> {name: '㈱マルカ物流', prefectureId: 14, phoneNumber: '045-000-0000'}
 *   row `,東京都,,` -> refused: 'name: is required'
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { errors, type FieldError } from '../errors/catalogue.js';
import { toReason } from '../errors/field-errors.js';
import { readMasterFile } from '../masters/masters.js';
import type { MatchRecord } from '../names/match.js';
import { projectRoot } from '../project-root.js';
import { parseAddress } from '../text/address.js';

export type RecordField = keyof MatchRecord;
export const recordFields: readonly RecordField[] = [
  'name',
  'prefectureId',
  'address',
  'phoneNumber',
  'websiteUrl',
  'corporateNumber',
];

/** What a CSV column feeds: a record field, or `prefecture` (a name or id, turned into prefectureId). */
type ColumnTarget = RecordField | 'prefecture';

/**
 * Header names each field is read from, compared without letter case, spaces, `_` and `-`
 * (docs/api.md, "Match jobs"). Any other column is kept in the results and not matched on.
 */
export const columnNames: Record<ColumnTarget, readonly string[]> = {
  name: [
    'name',
    'companyName',
    'company',
    'corporateName',
    'corporationName',
    '会社名',
    '企業名',
    '法人名',
    '商号',
    '名称',
  ],
  prefectureId: ['prefectureId', 'prefectureCode', 'prefCode', '都道府県コード'],
  prefecture: ['prefecture', 'pref', '都道府県', '都道府県名'],
  address: ['address', '住所', '所在地', '本社所在地'],
  phoneNumber: ['phoneNumber', 'phone', 'tel', 'telephone', '電話番号', '電話', 'TEL'],
  websiteUrl: ['websiteUrl', 'website', 'url', 'homepage', 'web', 'ホームページ', 'ウェブサイト', 'URL'],
  corporateNumber: ['corporateNumber', 'houjinBangou', '法人番号'],
};

const fold = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_-]/g, '');

const byFoldedName = new Map<string, ColumnTarget>(
  Object.entries(columnNames).flatMap(([target, names]) =>
    names.map((name) => [fold(name), target as ColumnTarget] as const),
  ),
);

/** Which column feeds which field; a 400 naming the header when no column is the name or two feed one field. */
export interface ColumnMap {
  /** Per column of the header: its target, or undefined (kept, not matched on). */
  targets: Array<ColumnTarget | undefined>;
}

export function mapColumns(header: string[]): ColumnMap {
  const targets = header.map((column) => byFoldedName.get(fold(column)));
  const problems: FieldError[] = [];
  const seen = new Map<string, string>();
  targets.forEach((target, index) => {
    if (!target) return;
    const field = target === 'prefecture' ? 'prefectureId' : target;
    const before = seen.get(field);
    if (before !== undefined)
      problems.push({
        field: 'header',
        reason: `columns "${before}" and "${header[index]}" both give ${field}; keep one`,
      });
    else seen.set(field, header[index] ?? '');
  });
  if (!targets.includes('name'))
    problems.push({
      field: 'header',
      reason: `must name the company name column (one of: ${columnNames.name.join(', ')})`,
    });
  if (problems.length > 0) throw errors.validation(problems);
  return { targets };
}

const prefectures = readMasterFile('prefectures').items.map((item) => ({
  id: Number(item.id),
  name: String(item.name),
  romaji: String(item.nameRomaji ?? '').toLowerCase(),
}));

/** '東京都', '東京', 'Tokyo', '13', '01' -> 13; anything else -> undefined. */
export function prefectureIdOf(value: string): number | undefined {
  const text = value.normalize('NFKC').trim();
  if (/^\d{1,2}$/.test(text)) {
    const id = Number(text);
    return id >= 1 && id <= 47 ? id : undefined;
  }
  const named = parseAddress(text).prefectureId;
  if (named !== undefined) return named;
  const lower = text.toLowerCase();
  return prefectures.find((item) => item.romaji === lower || item.name.replace(/[都道府県]$/, '') === text)
    ?.id;
}

/** A CSV row's record as the body of a match would carry it (empty cells left out). */
export function recordOfCsvRow(fields: string[], columns: ColumnMap): Record<string, unknown> | string {
  const record: Record<string, unknown> = {};
  for (const [index, target] of columns.targets.entries()) {
    const value = fields[index];
    if (!target || value === undefined || value.trim() === '') continue;
    if (target === 'prefecture') {
      const id = prefectureIdOf(value);
      if (id === undefined) return `prefecture: "${value}" is not a prefecture name or id (1-47)`;
      record.prefectureId = id;
    } else if (target === 'prefectureId') {
      record.prefectureId = /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    } else record[target] = value.trim();
  }
  return record;
}

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const spec = parse(readFileSync(path.join(projectRoot, 'openapi.yaml'), 'utf8')) as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const schema = { ...spec.components.schemas.MatchRecord };
    compiled = new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  return compiled;
}

/** The record, checked as POST /corporates/match checks one: undefined when valid, else the reasons. */
export function recordProblem(record: unknown): string | undefined {
  const check = validator();
  if (check(record)) return undefined;
  return (check.errors ?? [])
    .map((error) => {
      const field =
        error.keyword === 'required'
          ? String(error.params.missingProperty)
          : error.keyword === 'additionalProperties'
            ? String(error.params.additionalProperty)
            : error.instancePath.replace(/^\//, '') || 'record';
      return `${field}: ${toReason(error.keyword, error.message ?? '')}`;
    })
    .join('; ');
}
