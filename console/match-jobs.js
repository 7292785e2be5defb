// Match jobs in the console's #match view: a list too long for a few requests is uploaded once
// as a job (POST /rest/v1/corporates/match-jobs, JSONL of the mapped records) and matched by
// the server's worker; the page follows its progress (GET .../{id}), then reads its rows
// (GET .../{id}/results?format=jsonl) back onto the list. The job goes on when the tab closes:
// "照合ジョブ" lists the user's jobs with their progress, their results as CSV, cancel and
// resume. docs/console.md, docs/api.md ("Match jobs").

const jobStatusLabels = {
  queued: '待機中',
  running: '照合中',
  completed: '完了',
  stopped: '停止',
  cancelled: '中止',
  failed: '失敗',
};
const stopReasonLabels = { insufficientCredits: 'クレジット不足', maxCredits: '上限に到達' };
const pollMs = 1000;
/** Polls that may fail in a row (429, 503, a dropped connection) before the page stops following. */
const pollFailuresAllowed = 30;

let el;
let apiKey;
/** Called with a job id when the user resumes one from the list (the page follows it again). */
let onResumed = () => {};
/** The page's cap (使うクレジットの上限), for a job the cap stopped. */
let pageCap = () => undefined;
const $ = (id) => document.getElementById(id);
const japanTime = (iso) => new Date(iso).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const base = '/rest/v1/corporates/match-jobs';

export function isRunning(job) {
  return job.status === 'queued' || job.status === 'running';
}

export function jobStatusText(job) {
  const label = jobStatusLabels[job.status] ?? job.status;
  return job.stopReason ? `${label} (${stopReasonLabels[job.stopReason] ?? job.stopReason})` : label;
}

/** Uploads the records as a job; answers { job } or { response, data } when it was refused. */
export async function createJob(records, { candidates, maxCredits }) {
  const query = new URLSearchParams({ candidates: String(candidates) });
  if (maxCredits !== undefined) query.set('maxCredits', String(maxCredits));
  const response = await fetch(`${base}?${query}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/jsonl',
      'X-API-Key': apiKey(),
      'Idempotency-Key': crypto.randomUUID(),
    },
    body: `${records.map((record) => JSON.stringify(record)).join('\n')}\n`,
  });
  const data = await response.json().catch(() => ({ message: '応答が JSON ではありませんでした。' }));
  return response.ok ? { job: data } : { response, data };
}

/** Polls the job until it ends, `progress(job)` after each look; answers the last state seen. */
export async function followJob(id, progress) {
  let failures = 0;
  let job;
  // a look a second (the searches' rate limit is the user's, shared with the rest of the page)
  for (let wait = pollMs; ; ) {
    await sleep(wait);
    const response = await fetch(`${base}/${id}`, { headers: { 'X-API-Key': apiKey() } }).catch(() => null);
    wait = pollMs;
    const seen = response?.ok ? await response.json().catch(() => undefined) : undefined;
    if (seen) {
      failures = 0;
      job = seen;
      progress(job);
      showJobRow(job);
      if (!isRunning(job)) return job;
    } else if (response?.status === 404 || ++failures > pollFailuresAllowed) {
      return job ?? null;
    } else if (response?.status === 429) {
      wait = Math.max(pollMs, Number(response.headers.get('retry-after') ?? 1) * 1000);
    }
  }
}

/** The job's rows as the API answers them ([{ row, status, match, candidates, ... }]), or why not. */
export async function jobRows(id) {
  try {
    const response = await fetch(`${base}/${id}/results?format=jsonl`, {
      headers: { 'X-API-Key': apiKey() },
    });
    if (response.status === 404)
      return 'ジョブが見つかりません (保存期間を過ぎたか、ほかのキーのジョブです)。';
    if (!response.ok) return `結果を読めませんでした (${response.status})。`;
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  } catch {
    return '結果を読めませんでした (接続か応答の形)。';
  }
}

/**
 * A job's row as the page's outcome of a row ({ status, result, pick }): matched, unsure (its
 * candidates to pick from), none, withheld (maxCredits spent), unsent (not answered), skipped.
 */
export function outcomeOfJobRow(line, job) {
  const candidates = line.candidates ?? (line.firstCandidate ? [line.firstCandidate] : []);
  const result = { match: line.match ?? null, candidates };
  if (line.status === 'matched') return { status: 'match', result, pick: null };
  if (line.status === 'unmatched')
    return { status: candidates.length > 0 ? 'unsure' : 'none', result, pick: null };
  if (line.status === 'rejected') return { status: 'skipped', result: null, pick: null, note: line.reason };
  if (job?.stopReason === 'maxCredits') return { status: 'withheld', result: null, pick: null };
  const note =
    job?.status === 'cancelled'
      ? 'ジョブを中止したため照合していません'
      : 'ジョブが止まったため照合していません (再開できます)';
  return { status: 'unsent', result: null, pick: null, note };
}

// ---- the list of jobs ---------------------------------------------------------------------

async function call(path, method) {
  const response = await fetch(path, { method, headers: { 'X-API-Key': apiKey() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${response.status} ${body.message ?? ''}`.trim());
  return body;
}

async function downloadResults(job) {
  const response = await fetch(`${base}/${job.id}/results?format=csv`, {
    headers: { 'X-API-Key': apiKey() },
  });
  if (!response.ok) {
    $('match-jobs-status').textContent = `結果を読めませんでした (${response.status})。`;
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = el('a', { href: url, download: `match-job-${job.id.slice(0, 8)}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function act(job, method, suffix, done, button) {
  button.disabled = true;
  let path = `${base}/${job.id}${suffix}`;
  if (job.stopReason === 'maxCredits' && suffix === '/resume') {
    // the cap stopped it: it goes on only under a higher one, the page's
    const cap = pageCap();
    if (cap === undefined || cap <= job.creditsCharged) {
      $('match-jobs-status').textContent =
        `上限 (使うクレジットの上限) を ${job.creditsCharged.toLocaleString('ja')} より大きくしてから再開してください。`;
      button.disabled = false;
      return;
    }
    path += `?maxCredits=${cap}`;
  }
  try {
    showJobRow(await call(path, method));
    $('match-jobs-status').textContent = done;
    if (suffix === '/resume') onResumed(job.id);
  } catch (error) {
    $('match-jobs-status').textContent = `できませんでした: ${error.message}`;
    button.disabled = false;
  }
}

function button(text, className, onClick) {
  const node = el('button', { type: 'button', class: className, text });
  node.addEventListener('click', () => void onClick(node));
  return node;
}

function jobRow(job) {
  const actions = el(
    'td',
    {},
    button('結果 CSV', 'job-results', () => downloadResults(job)),
  );
  if (isRunning(job))
    actions.append(
      ' ',
      button('中止する', 'job-cancel', (node) => act(job, 'DELETE', '', '中止しました。', node)),
    );
  if (job.status === 'stopped' || job.status === 'failed')
    actions.append(
      ' ',
      button('再開する', 'job-resume', (node) => act(job, 'POST', '/resume', '再開しました。', node)),
    );
  return el(
    'tr',
    { 'data-id': job.id, 'data-status': job.status },
    el('td', { text: japanTime(job.createdAt) }),
    el('td', { text: jobStatusText(job) }),
    el('td', {
      class: 'num',
      text: `${job.rows.done.toLocaleString('ja')} / ${job.rows.total.toLocaleString('ja')}`,
    }),
    el('td', { class: 'num', text: job.rows.matched.toLocaleString('ja') }),
    el('td', { class: 'num', text: job.creditsCharged.toLocaleString('ja') }),
    actions,
  );
}

/** Draws a job's row again from a state just read (no call of its own); a new job goes first. */
export function showJobRow(job) {
  const body = $('match-jobs').tBodies[0];
  const row = jobRow(job);
  const old = [...body.rows].find((tr) => tr.dataset.id === job.id);
  if (old) old.replaceWith(row);
  else body.prepend(row);
  $('match-jobs-section').hidden = false;
}

/** Draws the user's jobs (newest first, the API's default page). */
export async function showJobs() {
  if (!apiKey()) return;
  try {
    const { jobs } = await call(`${base}?limit=20`, 'GET');
    $('match-jobs-section').hidden = jobs.length === 0;
    $('match-jobs').tBodies[0].replaceChildren(...jobs.map(jobRow));
  } catch (error) {
    $('match-jobs-status').textContent = `ジョブの一覧を読めませんでした: ${error.message}`;
  }
}

/** `helpers`: the console's `el` and `apiKey`, and `resumed(id)` for a job resumed from the list. */
export function startMatchJobs(helpers) {
  ({ el, apiKey } = helpers);
  onResumed = helpers.resumed;
  pageCap = helpers.maxCredits;
  $('match-jobs-refresh').addEventListener('click', () => void showJobs());
}
