/**
 * `npm run match -- <list.csv>`: a CSV list of companies (a CRM export) matched to corporate
 * numbers through the running API with the typed client (client/), 1,000 rows per request, or
 * past --job-above rows (default 1,000) as one match job run by the API's worker.
 * Writes the rows with corporateNumber, matchedName, status and candidates added, in the
 * input's encoding, and prints a summary. The API comes from API_URL, the key from
 * API_KEY_FILE (a file holding it, e.g. .local/alice.key) or API_KEY: never an option, so it
 * stays out of `ps` and shell history.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SingleBar } from 'cli-progress';
import { Option } from 'commander';
import { createCorpsearchClient, maxMatchChunk } from '../client/src/index.js';
import { apiKeyFromEnvironment, cliProgram, positiveWholeNumber, runCli, wholeNumber } from '../ops/cli.js';
import {
  addedCells,
  addedColumns,
  type ColumnField,
  csvLines,
  type Encoding,
  encode,
  readCsv,
  recordOf,
  resolveColumns,
} from './match-csv.js';

interface Options {
  nameColumn?: string;
  prefectureColumn?: string;
  addressColumn?: string;
  phoneColumn?: string;
  websiteColumn?: string;
  numberColumn?: string;
  encoding?: Encoding;
  out?: string;
  maxCredits?: number;
  chunkSize: number;
  jobAbove: number;
}

/** `list.csv` -> `list-matched.csv` beside it. */
function defaultOut(file: string): string {
  const { dir, name } = path.parse(file);
  return path.join(dir, `${name}-matched.csv`);
}

/** The command line: the list file and the options naming its columns, encoding, output and limits. */
function matchProgram() {
  return cliProgram(
    'match',
    'Match a CSV list of companies to corporate numbers through the running API ' +
      '(API_URL, default http://127.0.0.1:8080; key from API_KEY_FILE or API_KEY). ' +
      'Costs one credit per certain match.',
  )
    .argument('<file>', 'the CSV list, with a header row (UTF-8 with or without BOM, or Shift_JIS)')
    .option(
      '--name-column <column>',
      'company name: header or column number (default: name, 会社名, 企業名, 法人名, ...)',
    )
    .option(
      '--prefecture-column <column>',
      'prefecture id (13) or name (東京都) (default: 都道府県, prefecture)',
    )
    .option('--address-column <column>', 'address (default: 住所, 所在地, address)')
    .option('--phone-column <column>', 'phone number (default: 電話番号, tel, phone)')
    .option('--website-column <column>', 'website URL (default: url, website, ホームページ)')
    .option('--number-column <column>', 'corporate number already known (default: 法人番号, corporateNumber)')
    .addOption(
      new Option('--encoding <encoding>', 'input encoding (default: detected; output is the same)').choices([
        'utf-8',
        'shift_jis',
      ]),
    )
    .option('--out <file>', 'where the result goes (default: <file>-matched.csv)')
    .option('--max-credits <n>', 'the most the whole list may spend', wholeNumber)
    .option(
      '--chunk-size <n>',
      `rows per request (at most ${maxMatchChunk})`,
      positiveWholeNumber,
      maxMatchChunk,
    )
    .option(
      '--job-above <n>',
      'lists of more rows than this go to the API as one match job (the worker runs it; 0: always)',
      wholeNumber,
      maxMatchChunk,
    );
}

/** The list read and its columns resolved: everything about the file is checked before the API is called. */
function readList(file: string, options: Options) {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new Error(`cannot read ${file}`);
  }
  const csv = readCsv(bytes, options.encoding);
  const columns = resolveColumns(csv.header, {
    name: options.nameColumn,
    prefecture: options.prefectureColumn,
    address: options.addressColumn,
    phone: options.phoneColumn,
    website: options.websiteColumn,
    number: options.numberColumn,
  } satisfies Partial<Record<ColumnField, string | undefined>> as Partial<Record<ColumnField, string>>);
  return { csv, columns };
}

type Csv = ReturnType<typeof readList>['csv'];
type Columns = ReturnType<typeof readList>['columns'];
type Api = ReturnType<typeof createCorpsearchClient>;

/** Prefecture names (東京都 and 東京) to ids, asked of the API only when the list has a prefecture column. */
async function prefectureIdsOf(api: Api, baseUrl: string, columns: Columns): Promise<Map<string, number>> {
  const prefectureIds = new Map<string, number>();
  if (columns.prefecture !== undefined) {
    const prefectures = await api.master('prefectures').catch((error: Error) => {
      throw new Error(`cannot reach the API at ${baseUrl} (API_URL): ${error.message}`);
    });
    for (const { id, name } of prefectures) {
      prefectureIds.set(name, id);
      // 東京都 -> 東京, 大阪府 -> 大阪; 北海道 stays whole
      if (name !== '北海道') prefectureIds.set(name.replace(/[都道府県]$/, ''), id);
    }
  }
  return prefectureIds;
}

interface MatchRun {
  api: Api;
  baseUrl: string;
  csv: Csv;
  columns: Columns;
  prefectureIds: Map<string, number>;
  out: string;
  options: Options;
}

/**
 * Every row written to `out` in input order with its added cells, the rows not sent (no name)
 * as none; on a failure, the message says how many rows are written and where to start again.
 */
async function matchInto({ api, baseUrl, csv, columns, prefectureIds, out, options }: MatchRun) {
  const records = csv.rows.map((row) => recordOf(row, columns, prefectureIds));
  const rowOf = records.flatMap((record, row) => (record ? [row] : []));
  const counts = { matched: 0, unsure: 0, none: 0, 'over-max-credits': 0 };
  const fd = openSync(out, 'w');
  let first = true;
  let written = 0;
  const write = (rows: string[][]) => {
    writeSync(fd, encode(csvLines(rows), csv.encoding, first));
    first = false;
  };
  /** The rows before `upTo` not written yet, none of them sent (their name cell is empty). */
  const writeUnsentUpTo = (upTo: number) => {
    const rows: string[][] = [];
    for (; written < upTo; written += 1) {
      rows.push([...(csv.rows[written] as string[]), ...addedCells(null)]);
      counts.none += 1;
    }
    if (rows.length > 0) write(rows);
  };

  const bar = new SingleBar({
    format:
      'match [{bar}] {percentage}% | {value}/{total} rows | {speed} rows/s | ETA {eta_formatted} | {matched} matched',
    hideCursor: true,
  });
  const started = Date.now();
  bar.start(rowOf.length, 0, { speed: 0, matched: 0 });
  let creditsCharged = 0;
  try {
    write([[...csv.header, ...addedColumns]]);
    for await (const result of api.eachMatch(
      records.filter((record) => record !== null),
      {
        chunkSize: options.chunkSize,
        ...(options.maxCredits === undefined ? {} : { maxCredits: options.maxCredits }),
        onProgress: (progress) => {
          creditsCharged = progress.creditsCharged;
          const seconds = Math.max((Date.now() - started) / 1000, 0.001);
          bar.update(progress.done, {
            speed: Math.round(progress.done / seconds),
            matched: progress.matched,
          });
        },
      },
    )) {
      const row = rowOf[result.index] as number;
      writeUnsentUpTo(row);
      const cells = addedCells(result);
      counts[cells[2] as keyof typeof counts] += 1;
      write([[...(csv.rows[row] as string[]), ...cells]]);
      written = row + 1;
    }
    writeUnsentUpTo(csv.rows.length);
  } catch (error) {
    bar.stop();
    closeSync(fd);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${message}${/fetch failed|ECONNREFUSED/.test(message) ? ` (API_URL ${baseUrl})` : ''}; ` +
        `the first ${written} rows are in ${out} (${creditsCharged} credits charged): match the rest from row ${written + 1}`,
    );
  }
  bar.stop();
  closeSync(fd);
  return { counts, creditsCharged };
}

/** A job's row (results as JSONL) -> the cells the request path writes, `candidates` its first one. */
function jobCells(
  line: {
    status: string;
    match?: { corporateNumber: string; name: string } | null;
    candidateCount?: number;
    firstCandidate?: { corporateNumber: string; name: string; score: number } | null;
  },
  stopReason: string | undefined,
): string[] {
  const first = line.firstCandidate;
  const candidates = first ? `${first.corporateNumber}:${first.name}:${first.score}` : '';
  if (line.status === 'matched')
    return [line.match?.corporateNumber ?? '', line.match?.name ?? '', 'matched', candidates];
  if (line.status === 'unanswered')
    return ['', '', stopReason === 'maxCredits' ? 'over-max-credits' : 'not-answered', ''];
  if (line.status === 'rejected') return ['', '', 'none', ''];
  return ['', '', (line.candidateCount ?? 0) > 0 ? 'unsure' : 'none', candidates];
}

/**
 * A long list as one match job (POST /corporates/match-jobs): the rows with a name uploaded as
 * JSONL, the job's progress shown until it ends, its results written beside the input's rows.
 */
async function matchByJob({ api, csv, columns, prefectureIds, out, options }: MatchRun) {
  const records = csv.rows.map((row) => recordOf(row, columns, prefectureIds));
  const sent = records.filter((record) => record !== null);
  const created = await api.createMatchJob(`${sent.map((record) => JSON.stringify(record)).join('\n')}\n`, {
    format: 'jsonl',
    ...(options.maxCredits === undefined ? {} : { maxCredits: options.maxCredits }),
  });
  process.stderr.write(`match: job ${created.id} (${created.rows.total} rows); progress below\n`);
  const bar = new SingleBar({
    format: 'match job [{bar}] {percentage}% | {value}/{total} rows | {matched} matched | {status}',
    hideCursor: true,
  });
  bar.start(created.rows.total, 0, { matched: 0, status: created.status });
  const job = await api.waitForMatchJob(created.id, {
    onProgress: (now) => bar.update(now.rows.done, { matched: now.rows.matched, status: now.status }),
  });
  bar.stop();
  const file = await api.matchJobResults(created.id, { format: 'jsonl' });
  const text = await new Response(file.body).text();
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Parameters<typeof jobCells>[0]);
  const counts = { matched: 0, unsure: 0, none: 0, 'over-max-credits': 0, 'not-answered': 0 };
  const fd = openSync(out, 'w');
  try {
    const rows: string[][] = [[...csv.header, ...addedColumns]];
    let next = 0;
    for (const [index, record] of records.entries()) {
      const line = record ? lines[next++] : undefined;
      const cells = line ? jobCells(line, job.stopReason) : addedCells(null);
      counts[cells[2] as keyof typeof counts] += 1;
      rows.push([...(csv.rows[index] as string[]), ...cells]);
    }
    writeSync(fd, encode(csvLines(rows), csv.encoding, true));
  } finally {
    closeSync(fd);
  }
  if (job.status !== 'completed')
    process.stderr.write(
      `match: the job ${job.status}${job.stopReason ? ` (${job.stopReason})` : ''}: the rows not answered say so; ` +
        `resume it with POST /rest/v1/corporates/match-jobs/${job.id}/resume after a top-up\n`,
    );
  return { counts, creditsCharged: job.creditsCharged };
}

async function main(): Promise<void> {
  const program = matchProgram().parse();
  const [file] = program.args as [string];
  const options = program.opts<Options>();
  if (options.chunkSize > maxMatchChunk) program.error(`--chunk-size: at most ${maxMatchChunk}`);

  const { csv, columns } = readList(file, options);
  const out = path.resolve(options.out ?? defaultOut(file));
  if (out === path.resolve(file)) throw new Error('--out is the input file: choose another');
  const baseUrl = process.env.API_URL ?? 'http://127.0.0.1:8080';
  const api = createCorpsearchClient({
    baseUrl,
    apiKey: apiKeyFromEnvironment(),
    onRetry: ({ status, delayMs }) =>
      process.stderr.write(
        `match: the API answered ${status}; retrying in ${(delayMs / 1000).toFixed(1)} s\n`,
      ),
  });
  const used = Object.entries(columns)
    .map(([field, index]) => `${field}=${JSON.stringify(csv.header[index])}`)
    .join(', ');
  process.stderr.write(`match: ${csv.rows.length} rows (${csv.encoding}); columns ${used}\n`);

  const prefectureIds = await prefectureIdsOf(api, baseUrl, columns);
  const run = { api, baseUrl, csv, columns, prefectureIds, out, options };
  // a long list is one job on the API's worker, short ones go request by request
  const { counts, creditsCharged } =
    csv.rows.length > options.jobAbove ? await matchByJob(run) : await matchInto(run);
  process.stdout.write(
    [
      `rows: ${csv.rows.length}`,
      `matched: ${counts.matched}`,
      `unsure: ${counts.unsure}`,
      `none: ${counts.none}`,
      `over-max-credits: ${counts['over-max-credits']}`,
      `credits charged: ${creditsCharged}`,
      `written: ${out}`,
      '',
    ].join('\n'),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  runCli('match', main);
