/**
 * Outcomes per class and the calibration of candidates' confidence, from the endpoint's results
 * beside the labels. Pure: results and labels in, tables, markdown and an SVG out.
 *
 * Per record, one outcome:
 *   right match     `match` is the labelled company
 *   wrong match     `match` is another company, or any company where the label is null
 *   right null      no `match`, and the label is null (no confident match was right)
 *   in candidates   no `match`, the labelled company among the first 5 candidates
 *   absent          no `match`, the labelled company not among the first 5 (or no candidates)
 * A record labelled `certain: false` may end as right match, in candidates or absent: all
 * acceptable; only a wrong match is a mistake.
 *
 * Calibration: every candidate of every record (up to the first 5) with its confidence
 * (`confidence` when the endpoint gives it, else `score`), in bands of 0.1; a candidate is right
 * when it is the company the record refers to (truthOf: its label, else the company it was
 * written from; a generic name or a name of no company has no right candidate).
 */
import type { LabelledRecord } from '../name-variants.js';

export interface EvaluatedCandidate {
  corporateNumber: string;
  score?: number;
  confidence?: number;
}
export interface EvaluatedResult {
  match: EvaluatedCandidate | null;
  candidates?: readonly EvaluatedCandidate[];
}

export type Outcome = 'rightMatch' | 'wrongMatch' | 'rightNull' | 'inCandidates' | 'absent';
export const outcomes: readonly Outcome[] = [
  'rightMatch',
  'inCandidates',
  'absent',
  'rightNull',
  'wrongMatch',
];
/** How many candidates count as "among the candidates". */
export const topCandidates = 5;

export interface OutcomeRow {
  kind: string;
  records: number;
  /** records whose label names a company */
  labelled: number;
  /** records labelled `certain: false` */
  uncertain: number;
  rightMatch: number;
  inCandidates: number;
  absent: number;
  rightNull: number;
  wrongMatch: number;
}

export function outcomeOf(entry: LabelledRecord, result: EvaluatedResult): Outcome {
  const matched = result.match?.corporateNumber ?? null;
  if (matched !== null) return matched === entry.expected ? 'rightMatch' : 'wrongMatch';
  if (entry.expected === null) return 'rightNull';
  const top = (result.candidates ?? []).slice(0, topCandidates);
  return top.some((c) => c.corporateNumber === entry.expected) ? 'inCandidates' : 'absent';
}

const emptyRow = (kind: string): OutcomeRow => ({
  kind,
  records: 0,
  labelled: 0,
  uncertain: 0,
  rightMatch: 0,
  inCandidates: 0,
  absent: 0,
  rightNull: 0,
  wrongMatch: 0,
});

/** One row per class in first-seen order, then `all`. */
export function outcomeTable(
  labelled: readonly LabelledRecord[],
  results: readonly EvaluatedResult[],
): { rows: OutcomeRow[]; total: OutcomeRow } {
  if (labelled.length !== results.length)
    throw new Error(`${results.length} results for ${labelled.length} records: one result per record is due`);
  const rows = new Map<string, OutcomeRow>();
  const total = emptyRow('all');
  labelled.forEach((entry, i) => {
    const outcome = outcomeOf(entry, results[i] as EvaluatedResult);
    let row = rows.get(entry.kind);
    if (!row) {
      row = emptyRow(entry.kind);
      rows.set(entry.kind, row);
    }
    for (const counts of [row, total]) {
      counts.records++;
      if (entry.expected !== null) counts.labelled++;
      if (entry.certain === false) counts.uncertain++;
      counts[outcome]++;
    }
  });
  return { rows: [...rows.values()], total };
}

export interface CalibrationBand {
  from: number;
  to: number;
  candidates: number;
  right: number;
  /** share right; null when the band is empty */
  shareRight: number | null;
  /** share right minus the band's middle; null when empty */
  gap: number | null;
}

/** The confidence of a candidate: `confidence` when given, else `score`. */
export const confidenceOf = (candidate: EvaluatedCandidate) => candidate.confidence ?? candidate.score ?? 0;

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The company a record refers to: its label, or when the label is null (no confident match is
 * right: namesakes the evidence cannot tell apart) the company it was written from, since a
 * list's row names one real company; null for a generic name or a name of no company.
 */
export function truthOf(entry: LabelledRecord): string | null {
  return entry.expected ?? entry.from;
}

export function calibration(
  labelled: readonly LabelledRecord[],
  results: readonly EvaluatedResult[],
): CalibrationBand[] {
  const counts = Array.from({ length: 10 }, () => ({ candidates: 0, right: 0 }));
  labelled.forEach((entry, i) => {
    const result = results[i] as EvaluatedResult;
    const seen = new Set<string>();
    const list = [...(result.match ? [result.match] : []), ...(result.candidates ?? [])];
    for (const candidate of list) {
      if (seen.has(candidate.corporateNumber) || seen.size >= topCandidates) continue;
      seen.add(candidate.corporateNumber);
      const value = Math.min(1, Math.max(0, confidenceOf(candidate)));
      const band = counts[Math.min(9, Math.floor(value * 10))] as { candidates: number; right: number };
      band.candidates++;
      if (candidate.corporateNumber === truthOf(entry)) band.right++;
    }
  });
  return counts.map(({ candidates, right }, band) => {
    const shareRight = candidates > 0 ? right / candidates : null;
    return {
      from: round(band / 10, 1),
      to: round((band + 1) / 10, 1),
      candidates,
      right,
      shareRight: shareRight === null ? null : round(shareRight, 4),
      gap: shareRight === null ? null : round(shareRight - (band + 0.5) / 10, 4),
    };
  });
}

/** Expected calibration error: the bands' |gap| weighted by their candidates. */
export function calibrationError(bands: readonly CalibrationBand[]): number {
  const all = bands.reduce((sum, b) => sum + b.candidates, 0);
  if (all === 0) return 0;
  return round(bands.reduce((sum, b) => sum + b.candidates * Math.abs(b.gap ?? 0), 0) / all, 4);
}

/** A reliability diagram: each band's middle against its share right, with the diagonal. */
export function calibrationSvg(bands: readonly CalibrationBand[], title: string): string {
  const size = 360;
  const pad = 48;
  const plot = size - 2 * pad;
  const x = (v: number) => round(pad + v * plot, 1);
  const y = (v: number) => round(size - pad - v * plot, 1);
  const most = Math.max(1, ...bands.map((b) => b.candidates));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size + 20}" viewBox="0 0 ${size} ${size + 20}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${size}" height="${size + 20}" fill="white"/>`,
    `<text x="${size / 2}" y="18" text-anchor="middle" font-size="13">${escapeXml(title)}</text>`,
    `<rect x="${pad}" y="${pad}" width="${plot}" height="${plot}" fill="none" stroke="#999"/>`,
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
  ];
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    parts.push(
      `<text x="${x(v)}" y="${size - pad + 14}" text-anchor="middle">${v}</text>`,
      `<text x="${pad - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
    );
  }
  parts.push(
    `<text x="${size / 2}" y="${size - 12}" text-anchor="middle">confidence (band middle)</text>`,
    `<text x="14" y="${size / 2}" text-anchor="middle" transform="rotate(-90 14 ${size / 2})">share right</text>`,
  );
  // bars: how many candidates each band holds (scaled to the fullest band), behind the points
  for (const band of bands) {
    const height = (band.candidates / most) * plot * 0.25;
    parts.push(
      `<rect x="${x(band.from) + 2}" y="${round(size - pad - height, 1)}" width="${round(plot / 10 - 4, 1)}" height="${round(height, 1)}" fill="#dde"/>`,
    );
  }
  const points = bands.filter((b) => b.shareRight !== null);
  if (points.length > 1)
    parts.push(
      `<polyline fill="none" stroke="#c33" stroke-width="1.5" points="${points.map((b) => `${x((b.from + b.to) / 2)},${y(b.shareRight as number)}`).join(' ')}"/>`,
    );
  for (const band of points)
    parts.push(
      `<circle cx="${x((band.from + band.to) / 2)}" cy="${y(band.shareRight as number)}" r="3.5" fill="#c33"><title>${band.from}-${band.to}: ${band.right} of ${band.candidates} right</title></circle>`,
    );
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const pct = (part: number, whole: number) => (whole > 0 ? `${round((100 * part) / whole, 1)}%` : '-');

export interface OutcomeReport {
  rows: OutcomeRow[];
  total: OutcomeRow;
  calibration: CalibrationBand[];
  calibrationError: number;
}

export function outcomeReport(
  labelled: readonly LabelledRecord[],
  results: readonly EvaluatedResult[],
): OutcomeReport {
  const table = outcomeTable(labelled, results);
  const bands = calibration(labelled, results);
  return { ...table, calibration: bands, calibrationError: calibrationError(bands) };
}

/** The markdown of the outcomes and the calibration (the SVG is a file beside it: `svgName`). */
export function outcomeMarkdown(report: OutcomeReport, svgName?: string): string {
  const lines = [
    '### Outcomes per class',
    '',
    "Shares of the class's records. Right among candidates: no match, the labelled company among the first 5 candidates. Absent: no match, and the labelled company not among them. Right null: no match where none was right. A class with uncertain records (a person could not be sure) may end right, among candidates or absent; only a wrong match is a mistake.",
    '',
    '| class | records | label: a company | uncertain | right match | right among candidates | absent | right null | wrong match |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of [...report.rows, report.total])
    lines.push(
      `| ${row.kind} | ${row.records} | ${row.labelled} | ${row.uncertain} | ${row.rightMatch} (${pct(row.rightMatch, row.records)}) | ${row.inCandidates} (${pct(row.inCandidates, row.records)}) | ${row.absent} (${pct(row.absent, row.records)}) | ${row.rightNull} (${pct(row.rightNull, row.records)}) | ${row.wrongMatch} (${pct(row.wrongMatch, row.records)}) |`,
    );
  lines.push(
    '',
    "### Calibration of candidates' confidence",
    '',
    `Every record's first 5 candidates, by \`confidence\` (\`score\` where the endpoint gives no confidence); right: the labelled company. Expected calibration error (|gap| weighted by candidates): ${report.calibrationError}.${svgName ? ` Plot: \`${svgName}\`.` : ''}`,
    '',
    "| confidence | candidates | right | share right | gap to the band's middle |",
    '|---|---|---|---|---|',
  );
  for (const band of report.calibration)
    lines.push(
      `| ${band.from.toFixed(1)}-${band.to.toFixed(1)} | ${band.candidates} | ${band.right} | ${band.shareRight === null ? '-' : round(band.shareRight, 3)} | ${band.gap === null ? '-' : round(band.gap, 3)} |`,
    );
  return `${lines.join('\n')}\n`;
}
