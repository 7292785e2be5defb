// Export with its price first: the search body goes to the free count operation
// (POST /rest/v1/<search>/count answers totalResults and exportCredits), the page shows the
// records and credits, and only a confirmation sends the export, with `maxCredits` set to the
// price shown, so the download can never cost more than the user agreed to.

import { $, el } from './dom.js';

function countPath(search) {
  return search.path.replace(/\/search$/, '/count');
}

function exportPath(search) {
  return search.path.replace(/\/search$/, '/export');
}

function fileNameOf(response, fallback) {
  const disposition = response.headers.get('content-disposition') ?? '';
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback;
}

/** Hands the downloaded bytes to the browser as a file. */
function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = el('a', { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

async function postFor(apiKey, path, body) {
  return fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': apiKey() },
    body: JSON.stringify(body),
  });
}

async function errorText(response) {
  const data = await response.json().catch(() => ({}));
  const fields = (data.errors ?? []).map((error) => `${error.field}: ${error.reason}`).join('; ');
  return `${response.status}: ${data.message ?? 'failed'}${fields ? ` (${fields})` : ''}`;
}

function reset(panel) {
  panel.priced = null;
  $('export-cost').hidden = true;
  $('export-confirm-row').hidden = true;
  $('export-status').textContent = '';
}

function showPrice({ totalResults, exportCredits }, balance) {
  const short = balance !== null && balance < exportCredits;
  $('export-cost').textContent =
    `${totalResults.toLocaleString('ja')} 件をエクスポートすると ${exportCredits.toLocaleString('ja')} クレジットかかります` +
    (balance === null ? '。' : ` (残り ${balance.toLocaleString('ja')})。`) +
    (short ? ' 残りのクレジットが足りません。' : '');
  $('export-cost').dataset.credits = String(exportCredits);
  $('export-cost').dataset.total = String(totalResults);
  $('export-cost').hidden = false;
  $('export-confirm').textContent = `ダウンロードする (${exportCredits.toLocaleString('ja')} クレジット)`;
  $('export-confirm').disabled = short;
  $('export-confirm-row').hidden = false;
}

/** Step 1: the count operation's price of exporting the current search. */
async function price(panel, { apiKey, currentSearch, searchBody, credits }) {
  reset(panel);
  const search = currentSearch();
  if (!apiKey()) {
    $('export-status').textContent = 'API キーを入力してください。';
    return;
  }
  const body = searchBody();
  const response = await postFor(apiKey, countPath(search), body);
  if (!response.ok) {
    $('export-status').textContent = await errorText(response);
    return;
  }
  const { totalResults, exportCredits } = await response.json();
  panel.priced = { search, body, totalResults, exportCredits };
  showPrice(panel.priced, credits());
}

/** Step 2, after the confirmation: the export itself, capped at the price shown. */
async function download(panel, { apiKey }) {
  const priced = panel.priced;
  if (!priced) return;
  const [format, encoding] = $('export-format').value.split(':');
  const body = { ...priced.body, format, maxCredits: priced.exportCredits };
  if (encoding) body.encoding = encoding;
  $('export-confirm').disabled = true;
  $('export-status').textContent = 'ダウンロード中…';
  const response = await postFor(apiKey, exportPath(priced.search), body);
  if (!response.ok) {
    $('export-status').textContent = await errorText(response);
    $('export-confirm').disabled = false;
    return;
  }
  const name = fileNameOf(response, `${priced.search.name}.${format}`);
  saveFile(await response.blob(), name);
  $('export-status').textContent = `${name} をダウンロードしました。`;
  $('export-confirm-row').hidden = true;
  panel.priced = null;
}

/**
 * Wires the export panel; returns `{ reset }`, called whenever the search changes (a price
 * belongs to the search it was asked for).
 */
export function startExport(page) {
  /** priced: { search, body, exportCredits, totalResults } once priced, for the confirm step. */
  const panel = { priced: null };
  $('export-check').addEventListener('click', () => void price(panel, page));
  $('export-confirm').addEventListener('click', () => void download(panel, page));
  $('export-cancel').addEventListener('click', () => reset(panel));
  reset(panel);
  return { reset: () => reset(panel) };
}
