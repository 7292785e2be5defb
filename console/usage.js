// "Usage" (the console's #usage view): the credits the key's user spent per day (Japan time),
// drawn as bars, with the totals per operation (GET /rest/v1/usage), and the ledger entries
// behind them page by page (GET /rest/v1/usage/entries). Both are free. docs/credits.md.

const kindLabels = { charge: '利用', grant: '付与', opening: '開始残高' };
const svgNs = 'http://www.w3.org/2000/svg';
const chart = { width: 720, height: 180, top: 16, bottom: 28, left: 44 };

let el;
let apiKey;
let cursor = null;
const $ = (id) => document.getElementById(id);

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(svgNs, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

async function call(path) {
  const response = await fetch(path, { headers: { 'X-API-Key': apiKey() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const fields = (body.errors ?? []).map((e) => `${e.field}: ${e.reason}`).join('; ');
    throw new Error(`${response.status} ${body.code ?? ''} ${fields || body.message || ''}`.trim());
  }
  return body;
}

function range() {
  const params = new URLSearchParams();
  if ($('usage-from').value) params.set('from', $('usage-from').value);
  if ($('usage-to').value) params.set('to', $('usage-to').value);
  return params;
}

/** One bar per day, its height the credits spent; the tallest bar's value on the axis. */
function drawChart(days) {
  const area = $('usage-chart');
  area.replaceChildren();
  const most = Math.max(1, ...days.map((day) => day.creditsSpent));
  const plotWidth = chart.width - chart.left;
  const plotHeight = chart.height - chart.top - chart.bottom;
  const step = plotWidth / Math.max(1, days.length);
  const image = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
    role: 'img',
    'aria-label': '日ごとの利用クレジット',
  });
  image.append(
    svg('line', {
      x1: chart.left,
      y1: chart.top + plotHeight,
      x2: chart.width,
      y2: chart.top + plotHeight,
      class: 'axis',
    }),
    svg('text', { x: chart.left - 6, y: chart.top + 4, 'text-anchor': 'end', class: 'label' }, String(most)),
    svg('text', { x: chart.left - 6, y: chart.top + plotHeight, 'text-anchor': 'end', class: 'label' }, '0'),
    svg('text', { x: chart.left, y: chart.height - 8, class: 'label' }, days[0]?.date ?? ''),
    svg(
      'text',
      { x: chart.width, y: chart.height - 8, 'text-anchor': 'end', class: 'label' },
      days.at(-1)?.date ?? '',
    ),
  );
  days.forEach((day, i) => {
    const height = (day.creditsSpent / most) * plotHeight;
    const bar = svg('rect', {
      x: chart.left + i * step + step * 0.15,
      y: chart.top + plotHeight - height,
      width: Math.max(1, step * 0.7),
      height,
      class: 'bar',
      'data-date': day.date,
      'data-credits': day.creditsSpent,
    });
    bar.append(svg('title', {}, `${day.date}: ${day.creditsSpent} クレジット, ${day.requests} 件`));
    image.append(bar);
  });
  area.append(image);
}

function drawOperations(operations) {
  const rows = operations.map((op) =>
    el(
      'tr',
      {},
      el('td', { text: op.operation }),
      el('td', { text: op.creditsSpent }),
      el('td', { text: op.requests }),
    ),
  );
  $('usage-operations')
    .querySelector('tbody')
    .replaceChildren(...rows);
}

function entryRow(entry) {
  return el(
    'tr',
    { 'data-kind': entry.kind },
    el('td', { text: new Date(entry.at).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo' }) }),
    el('td', { text: kindLabels[entry.kind] ?? entry.kind }),
    el('td', { text: entry.credits }),
    el('td', { text: entry.operation ?? '' }),
    el('td', { text: entry.requestId ?? entry.matchJobId ?? '' }),
    el('td', { text: entry.rows ?? '' }),
  );
}

async function loadEntries(more) {
  const params = range();
  params.set('limit', '50');
  if (more && cursor) params.set('cursor', cursor);
  const page = await call(`/rest/v1/usage/entries?${params}`);
  const body = $('usage-entries').querySelector('tbody');
  const rows = page.entries.map(entryRow);
  if (more) body.append(...rows);
  else body.replaceChildren(...rows);
  cursor = page.nextCursor;
  $('usage-more').hidden = !cursor;
}

async function show() {
  $('usage-error').textContent = '';
  if (!apiKey()) {
    $('usage-summary').textContent = 'API キーを入力してください。';
    return;
  }
  try {
    const usage = await call(`/rest/v1/usage?${range()}`);
    $('usage-from').value = usage.from;
    $('usage-to').value = usage.to;
    $('usage-summary').textContent =
      `${usage.from} 〜 ${usage.to} (日本時間): ${usage.totals.creditsSpent} クレジット、${usage.totals.requests} 件。残高 ${usage.balance} クレジット`;
    $('usage-summary').dataset.spent = String(usage.totals.creditsSpent);
    drawChart(usage.days);
    drawOperations(usage.operations);
    await loadEntries(false);
    $('usage-summary').dataset.done = 'true';
  } catch (error) {
    $('usage-error').textContent = `表示できませんでした: ${error.message}`;
    $('usage-summary').dataset.done = 'error';
  }
}

export function startUsage(helpers) {
  ({ el, apiKey } = helpers);
  $('usage-run').addEventListener('click', () => void show());
  $('usage-more').addEventListener('click', () => void loadEntries(true));
  return { show };
}
