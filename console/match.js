// "Match a list" (the console's #match view): a pasted or uploaded list of company names goes
// to POST /rest/v1/corporates/match in one request of up to 1,000 records (a longer list, or
// when chosen, as one match job: ./match-jobs.js; requests of 1,000 when chosen), each row
// shows the company it
// names or the candidates to pick from, and the list comes back as CSV with the corporate
// numbers added. The file is read in the browser; only the mapped columns are sent.

import { decodeBytes, guessDelimiter, parseCsv, toCsv } from './csv.js';
import {
  createJob,
  followJob,
  isRunning,
  jobRows,
  jobStatusText,
  outcomeOfJobRow,
  showJobRow,
  showJobs,
  startMatchJobs,
} from './match-jobs.js';

const chunkSize = 1000; // the API's most records per request (docs/api.md)
/**
 * Past this many records (more than one request) the list goes as one match job: the worker's,
 * it goes on when the tab closes (the same default as `npm run match --job-above`).
 */
const jobAbove = chunkSize;
const shownRows = 2000; // the table's most rows; the download has them all
// the API's longest values (openapi.yaml MatchRecord); a longer optional value is left out
const maxLength = { name: 200, address: 300, phoneNumber: 50, websiteUrl: 500 };

/** The record fields a column can feed, with the header words that pick a column by default. */
const fields = [
  { key: 'name', label: '会社名 (必須)', guess: /会社名|社名|企業名|法人名|商号|取引先|^name$|company/i },
  { key: 'prefecture', label: '都道府県', guess: /都道府県|^県$|prefecture/i },
  { key: 'address', label: '住所', guess: /住所|所在地|address/i },
  { key: 'phoneNumber', label: '電話番号', guess: /電話|tel|phone/i },
  { key: 'websiteUrl', label: 'Web サイト', guess: /url|web|ホームページ|hp|サイト/i },
  { key: 'corporateNumber', label: '法人番号', guess: /法人番号|corporate.?number/i },
];

const reasonLabels = {
  name: '名称',
  reading: '読み',
  romaji: 'ローマ字',
  prefecture: '都道府県',
  address: '住所',
  phone: '電話',
  website: 'Web',
  corporateNumber: '法人番号',
  nearName: '類似名称',
};

const statusLabels = {
  match: '一致',
  picked: '選択済み',
  unsure: '要確認',
  none: '該当なし',
  withheld: '上限超過',
  unsent: '未照合',
  skipped: '対象外',
};

const state = {
  fileBytes: null,
  fileName: '',
  headers: [],
  rows: [],
  /** field key -> column index, or -1 */
  columns: {},
  /** per row: { status, result, pick, note } once matched */
  outcomes: [],
  prefectures: null,
  prices: null,
  /** The match job this page sent last: { id, toSend, list } (its rows map back onto that list). */
  job: null,
  /** Which list and mapping the outcomes belong to: a new list or mapping makes it another. */
  list: 0,
  /** A run or a job's follow-up is in progress: the run button stays off, nothing else starts. */
  busy: false,
};

/** The list or its mapping changed: what is in flight no longer writes into it. */
function newList() {
  state.list += 1;
  state.job = null;
}

let el;
let apiKey;
const $ = (id) => document.getElementById(id);

export function reasonText(matchedOn) {
  return (matchedOn ?? []).map((reason) => reasonLabels[reason] ?? reason).join('・');
}

function prefectureName(id) {
  return state.prefectures?.find((entry) => entry.id === id)?.name ?? (id === null ? '' : String(id));
}

/** 東京都, 東京, 13, １３ -> 13; anything else -> undefined (not sent: not evidence). */
function prefectureId(text) {
  const value = text.normalize('NFKC').trim();
  if (value === '') return undefined;
  if (/^\d{1,2}$/.test(value)) {
    const id = Number(value);
    return id >= 1 && id <= 47 ? id : undefined;
  }
  const entry = (state.prefectures ?? []).find(
    (candidate) => candidate.name === value || candidate.name.replace(/[都府県]$/, '') === value,
  );
  return entry?.id;
}

// ---- reading the list ---------------------------------------------------------------------

function load(text, source) {
  const table = parseCsv(text, guessDelimiter(text));
  const width = Math.max(0, ...table.map((row) => row.length));
  const header = table[0] ?? [];
  // a row longer than the header gets named columns, so no cell is lost in the download
  state.headers = Array.from({ length: width }, (_, i) => header[i]?.trim() || `列${i + 1}`);
  state.rows = table.slice(1).map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ''));
  state.outcomes = [];
  state.columns = {};
  newList();
  for (const field of fields) state.columns[field.key] = state.headers.findIndex((h) => field.guess.test(h));
  $('match-loaded').textContent =
    state.rows.length === 0
      ? `${source}: 見出し行のほかに行がありません。`
      : `${source}: ${state.rows.length.toLocaleString('ja')} 行、列 ${state.headers.join(' / ')}`;
  $('match-loaded').dataset.rows = String(state.rows.length);
  renderColumns();
  renderCost();
  $('match-columns-section').hidden = state.rows.length === 0;
  $('match-output').hidden = true;
  $('match-results').tBodies[0].replaceChildren();
}

function loadFile() {
  if (!state.fileBytes) return;
  const { text, encoding } = decodeBytes(state.fileBytes, $('match-encoding').value);
  load(text, `${state.fileName} (${encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'})`);
  $('match-loaded').dataset.encoding = encoding;
}

function renderColumns() {
  const grid = $('match-columns');
  grid.replaceChildren();
  for (const field of fields) {
    const select = el('select', { id: `match-col-${field.key}` });
    select.append(el('option', { value: '-1', text: '(使わない)' }));
    state.headers.forEach((header, i) => {
      select.append(el('option', { value: String(i), text: header }));
    });
    select.value = String(state.columns[field.key]);
    select.addEventListener('change', () => {
      state.columns[field.key] = Number(select.value);
      newList();
      renderCost();
    });
    grid.append(el('label', { for: select.id, text: field.label }), select);
  }
}

/** The records to send: [{ index, record }] for the rows with a usable name. */
function recordsToSend() {
  const column = state.columns;
  const cellOf = (row, key) => (column[key] >= 0 ? (row[column[key]] ?? '').trim() : '');
  const out = [];
  state.rows.forEach((row, index) => {
    const name = cellOf(row, 'name');
    if (name === '' || name.length > maxLength.name) return;
    const record = { name };
    const prefecture = prefectureId(cellOf(row, 'prefecture'));
    if (prefecture !== undefined) record.prefectureId = prefecture;
    for (const key of ['address', 'phoneNumber', 'websiteUrl']) {
      const value = cellOf(row, key);
      if (value !== '' && value.length <= maxLength[key]) record[key] = value;
    }
    // 1234-5678-9012-3 or full-width digits are still a number; anything else is not evidence
    const digits = cellOf(row, 'corporateNumber').normalize('NFKC').replace(/\D/g, '');
    if (digits.length === 13) record.corporateNumber = digits;
    out.push({ index, record });
  });
  return out;
}

function maxCredits() {
  const raw = $('match-max-credits').value.trim();
  return raw === '' ? undefined : Math.max(0, Math.floor(Number(raw)));
}

function renderCost() {
  const cost = $('match-cost');
  if (state.columns.name === undefined || state.columns.name < 0) {
    cost.textContent = '会社名の列を選んでください。';
    $('match-run').disabled = true;
    return;
  }
  $('match-run').disabled = state.busy;
  const count = recordsToSend().length;
  const skipped = state.rows.length - count;
  const price = state.prices?.matchCreditCost;
  const cap = maxCredits();
  const skippedNote = skipped > 0 ? ` (社名が空か長すぎる ${skipped} 行は送りません)` : '';
  const asJob = sendsAsJob(count);
  cost.dataset.mode = asJob ? 'job' : 'requests';
  const how = asJob
    ? ' 照合ジョブとしてサーバーで照合します (画面を閉じても続き、結果は「照合ジョブ」から取り出せます)。'
    : ` ${chunkSize.toLocaleString('ja')} 行ずつ送ります。`;
  if (price === undefined) {
    cost.textContent = `送る行: ${count.toLocaleString('ja')}${skippedNote}。料金を読み込めませんでした。${how}`;
    return;
  }
  const worst = cap === undefined ? count * price : Math.min(count * price, cap);
  cost.dataset.worst = String(worst);
  cost.textContent =
    (price === 0
      ? `送る行: ${count.toLocaleString('ja')}${skippedNote}。このサーバーでは照合は無料です。`
      : `送る行: ${count.toLocaleString('ja')}${skippedNote}。費用は最大 ${worst.toLocaleString('ja')} クレジット ` +
        `(一致が確定した行だけ 1 行 ${price} クレジット、要確認・該当なしの行は無料)。`) + how;
}

// ---- sending ------------------------------------------------------------------------------

async function loadPrefectures() {
  if (state.prefectures) return;
  const response = await fetch('/rest/v1/master/prefectures', { headers: { 'X-API-Key': apiKey() } });
  if (response.ok) state.prefectures = await response.json();
}

/** Requests of `chunkSize` (every candidate shown at once), or one job past `jobAbove` records. */
function sendsAsJob(count) {
  const mode = $('match-mode').value;
  return mode === 'job' || (mode === 'auto' && count > jobAbove);
}

async function run() {
  if (state.busy) return;
  $('match-errors').replaceChildren();
  if (!apiKey()) {
    $('match-progress-text').textContent = '先に API キーを入力してください。';
    return;
  }
  await loadPrefectures();
  const toSend = recordsToSend();
  const options = {
    candidates: Math.min(10, Math.max(1, Number($('match-candidates').value) || 3)),
    maxCredits: maxCredits(),
  };
  state.outcomes = state.rows.map(() => ({ status: 'skipped', result: null, pick: null }));
  // a row stays 'unsent' when a request before its own fails
  for (const entry of toSend) state.outcomes[entry.index] = { status: 'unsent', result: null, pick: null };
  const progress = $('match-progress');
  progress.hidden = false;
  progress.max = Math.max(1, toSend.length);
  progress.value = 0;
  $('match-output').hidden = false;
  delete $('match-summary').dataset.done;
  newList();
  const list = state.list;
  const sent = await whileBusy(() =>
    sendsAsJob(toSend.length) ? runJob(toSend, options, list) : runRequests(toSend, options),
  );
  if (sent && state.list === list) finish(toSend, sent);
}

/** Runs `work` with the run button off and nothing else started meanwhile; undefined when busy. */
async function whileBusy(work) {
  if (state.busy) return undefined;
  state.busy = true;
  $('match-run').disabled = true;
  try {
    return await work();
  } catch (error) {
    $('match-summary').textContent = `止まりました: ${error.message}`;
    return { failed: true, charged: 0, remaining: null };
  } finally {
    state.busy = false;
    $('match-run').disabled = false;
  }
}

/** Sends the records in requests of `chunkSize`; answers { failed, charged, remaining }. */
async function runRequests(toSend, options) {
  let budget = options.maxCredits;
  let charged = 0;
  let remaining = null;
  for (let start = 0; start < toSend.length; start += chunkSize) {
    const chunk = toSend.slice(start, start + chunkSize);
    $('match-progress-text').textContent =
      `照合中: ${start.toLocaleString('ja')} / ${toSend.length.toLocaleString('ja')} 行`;
    const body = { records: chunk.map((entry) => entry.record), candidates: options.candidates };
    if (budget !== undefined) body.maxCredits = budget;
    const response = await fetch('/rest/v1/corporates/match', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-API-Key': apiKey(),
        'Idempotency-Key': crypto.randomUUID(),
      },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({ message: '応答が JSON ではありませんでした。' }));
    if (!response.ok) {
      showError(response, data, chunk);
      return { failed: true, charged, remaining };
    }
    chunk.forEach((entry, i) => {
      state.outcomes[entry.index] = outcomeOf(data.results[i]);
    });
    charged += data.creditsCharged;
    if (budget !== undefined) budget = Math.max(0, budget - data.creditsCharged);
    remaining = response.headers.get('x-credits-remaining') ?? remaining;
    $('match-progress').value = start + chunk.length;
  }
  return { failed: false, charged, remaining };
}

/** Uploads the records as one job, follows it and reads its rows back onto the list. */
async function runJob(toSend, options, list) {
  $('match-progress-text').textContent = `ジョブとして送っています: ${toSend.length.toLocaleString('ja')} 行`;
  const created = await createJob(
    toSend.map((entry) => entry.record),
    options,
  );
  if (!created.job) {
    showError(created.response, created.data, toSend);
    return { failed: true, charged: 0, remaining: null };
  }
  state.job = { id: created.job.id, toSend, list };
  showJobRow(created.job);
  return followAndRead(created.job.id, toSend, list);
}

/** Most rows a job's answer is read back onto the page; past it the jobs list's results CSV. */
const readBackRows = 100_000;

async function followAndRead(id, toSend, list) {
  const short = id.slice(0, 8);
  const job = await followJob(id, (seen) => {
    $('match-progress').value = seen.rows.done;
    $('match-progress-text').textContent =
      `ジョブ ${short} ${jobStatusText(seen)}: ${seen.rows.done.toLocaleString('ja')} / ` +
      `${seen.rows.total.toLocaleString('ja')} 行 (一致 ${seen.rows.matched.toLocaleString('ja')})` +
      '。画面を閉じても照合は続き、下の「照合ジョブ」から結果を取り出せます。';
  });
  // another list was loaded meanwhile: this job's rows are not its rows
  if (state.list !== list) return undefined;
  const failed = (text) => {
    $('match-summary').textContent = `ジョブ ${short}: ${text}`;
    return { failed: true, charged: job?.creditsCharged ?? 0, remaining: null };
  };
  if (!job) return failed('状態を読めません。下の「照合ジョブ」から確かめてください。');
  if (isRunning(job)) return failed('まだ照合中です。下の「照合ジョブ」から結果を取り出せます。');
  if (job.rows.total > readBackRows)
    return failed(
      `${job.rows.total.toLocaleString('ja')} 行はこの画面に読み戻しません。下の「照合ジョブ」の結果 CSV をお使いください。`,
    );
  const rows = await jobRows(id);
  if (typeof rows === 'string') return failed(rows);
  for (const line of rows) {
    const entry = toSend[line.row - 1];
    // a row answered before (a resumed job) keeps its outcome and the user's pick
    const open = ['unsent', 'withheld'].includes(state.outcomes[entry?.index]?.status);
    if (entry && open) state.outcomes[entry.index] = outcomeOfJobRow(line, job);
  }
  const stopped = job.status === 'completed' ? '' : `ジョブ ${short} は${jobStatusText(job)}で終わりました。`;
  return { failed: false, charged: job.creditsCharged, remaining: null, stopped };
}

function finish(toSend, sent) {
  const done = Number($('match-progress').value);
  $('match-progress-text').textContent =
    done === toSend.length
      ? `完了: ${done.toLocaleString('ja')} 行を照合しました`
      : `${done.toLocaleString('ja')} / ${toSend.length.toLocaleString('ja')} 行で止まりました`;
  renderResults();
  if (sent.failed) {
    $('match-summary').dataset.done = 'true'; // the summary keeps the error
    return;
  }
  const counts = {};
  for (const outcome of state.outcomes) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
  const parts = ['match', 'unsure', 'none', 'withheld', 'unsent', 'skipped']
    .filter((status) => counts[status])
    .map((status) => `${statusLabels[status]} ${counts[status]}`);
  $('match-summary').textContent =
    `${sent.stopped ?? ''}${parts.join(' · ')} · 使ったクレジット ${sent.charged}` +
    `${sent.remaining === null ? '' : ` · 残り ${sent.remaining}`}`;
  $('match-summary').dataset.done = 'true';
  $('match-summary').dataset.charged = String(sent.charged);
}

/** A job of this page resumed from the list: follow it again and read its rows once it ends. */
async function resumed(id) {
  const job = state.job;
  if (job?.id !== id || job.list !== state.list || state.busy) return;
  delete $('match-summary').dataset.done;
  const sent = await whileBusy(() => followAndRead(id, job.toSend, job.list));
  if (sent && state.list === job.list) finish(job.toSend, sent);
}

/** The API's places (records[3].name) as rows of the list (行 5: name). */
function showError(response, data, chunk) {
  const requestId = response.headers.get('x-request-id');
  $('match-summary').textContent =
    `${response.status}: ${data.message ?? '失敗しました'} (request ${requestId})`;
  $('match-errors').replaceChildren(
    ...(data.errors ?? []).map((error) => {
      const place = /^records\[(\d+)\]\.?(.*)$/.exec(error.field ?? '');
      const row = place ? chunk[Number(place[1])] : undefined;
      const where = row ? `行 ${row.index + 1}${place[2] ? ` (${place[2]})` : ''}` : error.field;
      return el('li', { text: `${where}: ${error.reason}` });
    }),
  );
}

function outcomeOf(result) {
  if (result.match) return { status: 'match', result, pick: null };
  if (result.overMaxCredits) return { status: 'withheld', result, pick: null };
  if (result.candidates.length > 0) return { status: 'unsure', result, pick: null };
  return { status: 'none', result, pick: null };
}

/** The company a row answers with: the match, or the candidate the user picked. */
function chosen(outcome) {
  if (outcome.status === 'match') return outcome.result.match;
  if (outcome.status === 'unsure' && outcome.pick !== null) return outcome.result.candidates[outcome.pick];
  return null;
}

function shownStatus(outcome) {
  return outcome.status === 'unsure' && outcome.pick !== null ? 'picked' : outcome.status;
}

// ---- the table ----------------------------------------------------------------------------

function candidateList(outcome, rowIndex) {
  const list = el('div', { class: 'candidates' });
  const group = `pick-${rowIndex}`;
  outcome.result.candidates.forEach((candidate, i) => {
    const radio = el('input', { type: 'radio', name: group, value: String(i), checked: outcome.pick === i });
    radio.addEventListener('change', () => {
      outcome.pick = i;
      refreshRow(rowIndex);
    });
    const where = [prefectureName(candidate.prefectureId), candidate.cityName ?? ''].join(' ').trim();
    // two lines: the name and score beside the radio, where and why under the name
    list.append(
      el(
        'label',
        { class: 'candidate', 'data-corporate-number': candidate.corporateNumber },
        radio,
        el(
          'div',
          {},
          el('span', { class: 'candidate-name', text: candidate.name }),
          el('span', { class: 'score', text: `スコア ${candidate.score.toFixed(2)}` }),
        ),
        el(
          'div',
          { class: 'candidate-detail' },
          el('span', { text: where }),
          el('span', { class: 'mono', text: candidate.corporateNumber }),
          el('span', { text: reasonText(candidate.matchedOn) }),
        ),
      ),
    );
  });
  const none = el('input', { type: 'radio', name: group, value: '', checked: outcome.pick === null });
  none.addEventListener('change', () => {
    outcome.pick = null;
    refreshRow(rowIndex);
  });
  list.append(el('label', { class: 'candidate' }, none, el('span', { text: 'どれでもない' })));
  return list;
}

function rowElement(outcome, index) {
  const status = shownStatus(outcome);
  const company = chosen(outcome);
  const note =
    outcome.status === 'withheld'
      ? '上限に達したため保留: もう一度送ってください'
      : outcome.status === 'unsent'
        ? (outcome.note ?? 'エラーで止まったため照合していません')
        : outcome.status === 'skipped'
          ? (outcome.note ?? '社名が空か長すぎるため送っていません')
          : '';
  return el(
    'tr',
    { 'data-row': index, 'data-status': status },
    el('td', { class: 'num', text: String(index + 1) }),
    el('td', { text: state.rows[index][state.columns.name] ?? '' }),
    el('td', {}, el('span', { class: `status status-${status}`, text: statusLabels[status] })),
    el('td', { text: company?.name ?? note }),
    el('td', { class: 'mono', text: company?.corporateNumber ?? '' }),
    el('td', { text: company ? prefectureName(company.prefectureId) : '' }),
    el('td', { text: company?.cityName ?? '' }),
    el('td', { class: 'reason', text: company ? reasonText(company.matchedOn) : '' }),
    el('td', { class: 'choices' }, outcome.status === 'unsure' ? candidateList(outcome, index) : ''),
  );
}

/** After a pick only its row changes: a list of thousands is not drawn again. */
function refreshRow(index) {
  document
    .querySelector(`#match-results tr[data-row="${index}"]`)
    ?.replaceWith(rowElement(state.outcomes[index], index));
}

function renderResults() {
  const show = $('match-show').value;
  const rows = [];
  let hidden = 0;
  state.outcomes.forEach((outcome, index) => {
    if (show === 'unsure' && outcome.status !== 'unsure') return;
    if (show === 'none' && outcome.status !== 'none') return;
    if (rows.length < shownRows) rows.push(rowElement(outcome, index));
    else hidden += 1;
  });
  $('match-results').tBodies[0].replaceChildren(...rows);
  $('match-more').textContent =
    hidden === 0
      ? ''
      : `表示は ${shownRows.toLocaleString('ja')} 行まで (ほか ${hidden.toLocaleString('ja')} 行)。` +
        '「要確認のみ」で絞り込むか、CSV をダウンロードしてください (すべての行が入ります)。';
}

// ---- the download -------------------------------------------------------------------------

function download() {
  const table = [[...state.headers, 'corporateNumber', 'matchedName', 'status', 'reason']];
  state.rows.forEach((row, index) => {
    const outcome = state.outcomes[index] ?? { status: 'skipped', result: null, pick: null };
    const company = chosen(outcome);
    const status = shownStatus(outcome);
    const reason = company
      ? reasonText(company.matchedOn)
      : status === 'unsure'
        ? `候補 ${outcome.result.candidates.length} 件`
        : '';
    table.push([...row, company?.corporateNumber ?? '', company?.name ?? '', status, reason]);
  });
  const blob = new Blob([toCsv(table)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const base = state.fileName.replace(/\.[^.]*$/, '') || 'list';
  const link = el('a', { href: url, download: `${base}-matched.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---- wiring -------------------------------------------------------------------------------

/** `helpers`: the console's `el` (element builder) and `apiKey` (the tab's key). */
export async function startMatch(helpers) {
  ({ el, apiKey } = helpers);
  startMatchJobs({ el, apiKey, resumed: (id) => void resumed(id), maxCredits });
  $('match-mode').addEventListener('change', renderCost);
  $('match-load-paste').addEventListener('click', () => {
    state.fileBytes = null;
    state.fileName = '';
    void loadPrefectures().then(() => load($('match-paste').value, '貼り付け'));
  });
  $('match-file').addEventListener('change', async () => {
    const file = $('match-file').files?.[0];
    if (!file) return;
    state.fileBytes = new Uint8Array(await file.arrayBuffer());
    state.fileName = file.name;
    await loadPrefectures();
    loadFile();
  });
  $('match-encoding').addEventListener('change', loadFile);
  $('match-max-credits').addEventListener('input', renderCost);
  $('match-run').addEventListener('click', () => void run());
  $('match-show').addEventListener('change', renderResults);
  $('match-download').addEventListener('click', download);
  const response = await fetch('/console/prices.json');
  if (response.ok) state.prices = await response.json();
  return { show: showJobs };
}
