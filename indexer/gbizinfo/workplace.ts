/**
 * gBizINFO's workplace figures (職場情報, `Shokubajoho`): one row per company, the figures the
 * Ministry of Health, Labour and Welfare's databases publish (average age, tenure, overtime,
 * the share of women among workers, managers and officers, childcare leave). The service keeps
 * seven figures (src/catalogue/gbizinfo-kinds.ts `workplaceFigures`), each to one decimal and null
 * when the row does not give it (never 0 for "not given"); the shares of women managers and
 * officers and of men taking childcare leave are computed from the counts the row gives.
 *
 *   workplaceFormat.check(row) // { ok: true, corporateNumber, row: { averageAge: 41.3, ..., femaleManagerPercent: 12.5 } }
 */
import { type WorkplaceFigure, workplaceFigures } from '../../src/catalogue/gbizinfo-kinds.js';
import { columnCountReasons, type KindFormat, numberReasons, type Summary } from './rows.js';

const columns = [
  '法人番号',
  '法人名',
  '本社所在地',
  '企業規模',
  '企業規模詳細(男性)',
  '企業規模詳細(女性)',
  '平均継続勤務年数-範囲',
  '平均継続勤務年数-男性',
  '平均継続勤務年数-女性',
  '正社員の平均継続勤務年数',
  '従業員の平均年齢',
  '月平均所定外労働時間',
  '労働者に占める女性労働者の割合-範囲',
  '労働者に占める女性労働者の割合',
  '女性管理職人数',
  '管理職全体人数(男女計)',
  '女性役員人数',
  '役員全体人数(男女計)',
  '育児休業対象者数(男性)',
  '育児休業対象者数(女性)',
  '育児休業取得者数(男性)',
  '育児休業取得者数(女性)',
] as const;

type Column = (typeof columns)[number];
const at = (name: Column) => columns.indexOf(name);

export type WorkplaceRow = Record<WorkplaceFigure, number | null>;

/** The figures read as given, with the bounds a real figure lies within. */
const given: Array<{ figure: WorkplaceFigure; column: Column; max: number }> = [
  { figure: 'averageAge', column: '従業員の平均年齢', max: 100 },
  { figure: 'averageTenureYears', column: '正社員の平均継続勤務年数', max: 80 },
  { figure: 'overtimeHoursPerMonth', column: '月平均所定外労働時間', max: 400 },
  { figure: 'femaleWorkerPercent', column: '労働者に占める女性労働者の割合', max: 100 },
];

/** The shares computed from two counts (part / whole), as percents. */
const shares: Array<{ figure: WorkplaceFigure; part: Column; whole: Column; capped: boolean }> = [
  { figure: 'femaleManagerPercent', part: '女性管理職人数', whole: '管理職全体人数(男女計)', capped: true },
  { figure: 'femaleOfficerPercent', part: '女性役員人数', whole: '役員全体人数(男女計)', capped: true },
  // leave taken this year by men whose child was born last year counts too: may pass 100
  {
    figure: 'maleChildcareLeavePercent',
    part: '育児休業取得者数(男性)',
    whole: '育児休業対象者数(男性)',
    capped: false,
  },
];

const notGiven = new Set(['', '-', '－', '―', 'ー', '*', '＊']);

/** One decimal, as the decimal's own nearest double (413 / 10 === 41.3). */
export function tenths(value: number): number {
  return Math.round(value * 10) / 10;
}

/** A figure as written (`41.3`, `41.3歳`, `12.5%`, `1,204人`): null when not given, undefined when not a number. */
export function figureOf(text: string): number | null | undefined {
  const plain = text.trim().normalize('NFKC').replace(/,/g, '');
  if (notGiven.has(plain)) return null;
  const match = /^(\d{1,7}(?:\.\d{1,4})?)(?:歳|年|時間|%|人|名)?$/.exec(plain);
  return match ? Number(match[1]) : undefined;
}

function check(fields: readonly string[]) {
  const reasons = columnCountReasons(fields, columns);
  if (reasons.length > 0) return { ok: false as const, reasons };
  reasons.push(...numberReasons(fields, columns));
  const read = (column: Column): number | null => {
    const value = figureOf(fields[at(column)] ?? '');
    if (value === undefined) reasons.push(`${column}: must be empty or a number`);
    return value ?? null;
  };
  const row = Object.fromEntries(workplaceFigures.map((figure) => [figure, null])) as WorkplaceRow;
  for (const { figure, column, max } of given) {
    const value = read(column);
    if (value !== null && value > max) reasons.push(`${column}: ${value} is past ${max}`);
    row[figure] = value === null ? null : tenths(value);
  }
  for (const { figure, part, whole, capped } of shares) {
    const partCount = read(part);
    const wholeCount = read(whole);
    for (const [column, count] of [
      [part, partCount],
      [whole, wholeCount],
    ] as const)
      if (count !== null && !Number.isInteger(count))
        reasons.push(`${column}: must be a whole number of people`);
    if (capped && partCount !== null && wholeCount !== null && partCount > wholeCount)
      reasons.push(`${part}: ${partCount} is more than ${whole} (${wholeCount})`);
    row[figure] =
      partCount === null || wholeCount === null || wholeCount === 0
        ? null
        : // one division of whole numbers, correctly rounded: 23 of 80 is 28.75, kept 28.8 (not 28.7)
          Math.round((partCount * 1000) / wholeCount) / 10;
  }
  if (reasons.length > 0) return { ok: false as const, reasons };
  return { ok: true as const, corporateNumber: (fields[0] ?? '').trim(), row };
}

const secondRow = `${columns[0]}: a second row of the company (the file gives one per company)`;

export const workplaceFormat: KindFormat<WorkplaceRow> = {
  columns,
  stem: 'Shokubajoho',
  check,
  onePerCompany: secondRow,
  empty: (): Summary => ({ figures: -1 }),
  add(summary, row) {
    if (summary.figures !== -1) return secondRow;
    summary.figures = workplaceFigures.filter((figure) => row[figure] !== null).length;
    for (const figure of workplaceFigures) summary[figure] = row[figure];
    return undefined;
  },
};
