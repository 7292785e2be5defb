// "Webhooks" (the console's #webhooks view): the key's user's webhooks (GET /rest/v1/webhooks),
// each with its state (active, or stopped by the receiver's 410 Gone, and why), the delivery
// log of the one picked (GET /rest/v1/webhooks/{id}/deliveries), and a stopped webhook made
// active again (POST /rest/v1/webhooks/{id}/enable). All free. docs/webhooks.md.

const outcomeLabels = { delivered: '配信済み', failed: '失敗 (再送予定)', 'gave up': '断念 (デッドレター)' };

let el;
let apiKey;
const $ = (id) => document.getElementById(id);
const japanTime = (iso) => new Date(iso).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo' });

async function call(path, method = 'GET') {
  const response = await fetch(path, { method, headers: { 'X-API-Key': apiKey() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const fields = (body.errors ?? []).map((e) => `${e.field}: ${e.reason}`).join('; ');
    throw new Error(`${response.status} ${body.code ?? ''} ${fields || body.message || ''}`.trim());
  }
  return body;
}

function stateText(webhook) {
  if (!webhook.disabledAt) return '有効';
  return `停止 (${japanTime(webhook.disabledAt)}${webhook.disabledReason ? `: ${webhook.disabledReason}` : ''})`;
}

function webhookRow(webhook) {
  const log = el('button', { type: 'button', class: 'show-deliveries', text: '配信履歴' });
  log.addEventListener('click', () => void showDeliveries(webhook));
  const actions = el('td', {}, log);
  if (webhook.disabledAt) {
    const enable = el('button', { type: 'button', class: 'enable', text: '再開する' });
    enable.addEventListener('click', () => void enableWebhook(webhook));
    actions.append(' ', enable);
  }
  return el(
    'tr',
    { 'data-id': webhook.id, 'data-state': webhook.disabledAt ? 'disabled' : 'active' },
    el('td', { text: webhook.url }),
    el('td', { text: webhook.savedSearchId }),
    el('td', { text: webhook.events.join(', ') }),
    el('td', { class: 'state', text: stateText(webhook) }),
    actions,
  );
}

function deliveryRow(entry) {
  return el(
    'tr',
    { 'data-outcome': entry.outcome },
    el('td', { text: japanTime(entry.at) }),
    el('td', { text: entry.eventType }),
    el('td', { text: entry.attempt }),
    el('td', { text: outcomeLabels[entry.outcome] ?? entry.outcome }),
    el('td', { text: entry.statusCode ?? '' }),
    el('td', { text: entry.error ?? '' }),
    el('td', { text: entry.durationMs }),
  );
}

async function showDeliveries(webhook) {
  $('webhooks-error').textContent = '';
  try {
    const { deliveries } = await call(
      `/rest/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries?limit=100`,
    );
    $('webhook-deliveries-title').textContent = `配信履歴: ${webhook.url} (新しい順、最大 100 件)`;
    $('webhook-deliveries')
      .querySelector('tbody')
      .replaceChildren(...deliveries.map(deliveryRow));
    $('webhook-deliveries-section').hidden = false;
    $('webhook-deliveries-section').dataset.webhook = webhook.id;
  } catch (error) {
    $('webhooks-error').textContent = `配信履歴を表示できませんでした: ${error.message}`;
  }
}

async function enableWebhook(webhook) {
  $('webhooks-error').textContent = '';
  try {
    await call(`/rest/v1/webhooks/${encodeURIComponent(webhook.id)}/enable`, 'POST');
    await show();
  } catch (error) {
    $('webhooks-error').textContent = `再開できませんでした: ${error.message}`;
  }
}

async function show() {
  $('webhooks-error').textContent = '';
  if (!apiKey()) {
    $('webhooks-summary').textContent = 'API キーを入力してください。';
    return;
  }
  try {
    const { results } = await call('/rest/v1/webhooks');
    const stopped = results.filter((webhook) => webhook.disabledAt).length;
    $('webhooks-summary').textContent =
      results.length === 0
        ? 'Webhook はありません (POST /rest/v1/webhooks で登録します)。'
        : `${results.length} 件 (停止中 ${stopped} 件)`;
    $('webhooks-list')
      .querySelector('tbody')
      .replaceChildren(...results.map(webhookRow));
    $('webhooks-summary').dataset.done = 'true';
  } catch (error) {
    $('webhooks-error').textContent = `表示できませんでした: ${error.message}`;
    $('webhooks-summary').dataset.done = 'error';
  }
}

export function startWebhooks(helpers) {
  ({ el, apiKey } = helpers);
  $('webhooks-reload').addEventListener('click', () => void show());
  return { show };
}
