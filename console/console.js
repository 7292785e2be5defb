// The query console as a list builder: builds a search body from the filter catalogue
// (/console/catalogue.json, Japanese labels from src/catalogue/labels.ts), shows it with the
// matching curl command, runs it against /rest/v1 page by page with the API's cursor, counts
// its facets, prices and downloads an export, and keeps searches in the URL and as saved
// searches. Plain browser JavaScript, no build step; loaded as files so a strict CSP can
// forbid inline script. The API key lives in sessionStorage only (gone when the tab closes)
// and is never part of a URL or a saved search. The "match a list" view (#match) is match.js,
// the usage view (#usage) usage.js, the webhooks view (#webhooks) webhooks.js.

import { $, el } from './dom.js';
import { startExport } from './export.js';
import { startMatch } from './match.js';
import { labelled, renderFacets, renderResults } from './results.js';
import {
  browserSavedSearches,
  conditionsOf,
  fromSavedSearch,
  hashToState,
  keepBrowserSavedSearches,
  stateToHash,
  toSavedSearch,
} from './search-state.js';
import { startUsage } from './usage.js';
import { startWebhooks } from './webhooks.js';

const keyStorage = 'corpsearch.apiKey';
const groupTitles = { company: '会社', postings: '求人', detailText: '求人の本文' };
const opLabels = {
  any: 'いずれかに一致',
  none: 'いずれにも一致しない',
  anyContains: 'いずれかを含む',
  allContains: 'すべてを含む',
  noneContains: 'いずれも含まない',
  min: '以上',
  max: '以下',
  from: 'から (日付)',
  to: 'まで (日付)',
  is: '次の値',
};

const state = {
  catalogue: [],
  search: 'corporates',
  /** [{ id, filter, op, value }] in the order added */
  conditions: [],
  masters: new Map(),
  nextId: 1,
  /**
   * Cursor paging: cursors[i] fetches page i ('*' the first), starts[i] is its first row,
   * kept[i] the page as received (shown again when going back).
   */
  pages: { cursors: ['*'], starts: [0], kept: [], index: 0 },
  /** Set by a URL or saved search opened before a key was entered: run once one is. */
  pendingRun: false,
  /** The hash this page last wrote, so its own change is not read back as a new search. */
  writtenHash: '',
  credits: null,
};

function apiKey() {
  return sessionStorage.getItem(keyStorage) ?? '';
}

function currentSearch() {
  return state.catalogue.find((search) => search.name === state.search);
}

// ---- masters: pick lists with names -------------------------------------------------------

async function loadMasters() {
  const names = new Set();
  for (const search of state.catalogue)
    for (const filter of search.filters) if (filter.master) names.add(filter.master.name);
  await Promise.all(
    [...names].map(async (name) => {
      const response = await fetch(`/rest/v1/master/${name}`, { headers: { 'X-API-Key': apiKey() } });
      if (response.ok) state.masters.set(name, await response.json());
    }),
  );
}

/** [{ value, label }] for a filter with a master, or null while the list is not loaded. */
function masterOptions(master) {
  const entries = state.masters.get(master.name);
  if (!entries) return null;
  if (master.level === 'sub') {
    return entries.flatMap((parent) =>
      (parent.subCategories ?? []).map((sub) => ({
        value: sub.id,
        label: `${parent.name} / ${sub.name} (${sub.id})`,
      })),
    );
  }
  return entries.map((entry) => ({
    value: entry[master.valueField],
    label: `${entry.name} (${entry[master.valueField]})`,
  }));
}

// ---- the filter picker --------------------------------------------------------------------

function matchesQuery(filter, query) {
  return (
    query === '' ||
    filter.key.toLowerCase().includes(query) ||
    filter.label.toLowerCase().includes(query) ||
    filter.description.toLowerCase().includes(query)
  );
}

function renderFilterGroups() {
  const container = $('filter-groups');
  container.replaceChildren();
  const query = $('filter-search').value.trim().toLowerCase();
  const search = currentSearch();
  if (!search) return;
  for (const group of Object.keys(groupTitles)) {
    const filters = search.filters.filter((filter) => filter.group === group && matchesQuery(filter, query));
    if (filters.length === 0) continue;
    const list = el('div', { class: 'filter-list' });
    for (const filter of filters) {
      const button = el(
        'button',
        { type: 'button', title: `${filter.key}: ${filter.description}`, 'data-filter': filter.key },
        ...labelled(filter.label, filter.key),
      );
      button.addEventListener('click', () => addCondition(filter));
      list.append(button);
    }
    container.append(
      el(
        'fieldset',
        { 'data-group': group },
        el('legend', { text: `${groupTitles[group]} (${filters.length})` }),
        list,
      ),
    );
  }
}

// ---- conditions ---------------------------------------------------------------------------

function addCondition(filter, op = filter.conditions[0].op, value = undefined) {
  const condition = { id: state.nextId++, filter, op, value };
  state.conditions.push(condition);
  renderConditions();
  update();
  return condition;
}

/** A facet value picked: into the filter's `any` condition (made if missing), then run. */
function addFacetValue(key, value) {
  const filter = currentSearch()?.filters.find((entry) => entry.key === key);
  if (!filter) return;
  const existing = state.conditions.find(
    (condition) => condition.filter === filter && condition.op === 'any',
  );
  if (existing) {
    const values = Array.isArray(existing.value) ? existing.value : [];
    existing.value = values.includes(value) ? values : [...values, value];
    renderConditions();
    update();
  } else addCondition(filter, 'any', [value]);
  void runPage(0);
}

function removeCondition(condition) {
  state.conditions = state.conditions.filter((other) => other !== condition);
  renderConditions();
  update();
}

function conditionSpec(condition) {
  return condition.filter.conditions.find((entry) => entry.op === condition.op);
}

function isList(op) {
  return ['any', 'none', 'anyContains', 'allContains', 'noneContains'].includes(op);
}

/** The editor of one condition's value, by kind; calls back with the parsed value. */
function valueEditor(condition, onChange) {
  const spec = conditionSpec(condition);
  const { kind, item } = spec;
  const name = `value-${condition.filter.key}`;
  const yesNo = ['presence', 'flag', 'listed', 'inclusion'].includes(kind);
  if (yesNo || (kind === 'validOn' && item.type === 'boolean')) {
    const select = el(
      'select',
      { name, 'aria-label': `${condition.filter.key} value` },
      el('option', { value: 'true', text: 'true' }),
      el('option', { value: 'false', text: 'false' }),
    );
    if (kind === 'listed') select.append(el('option', { value: 'null', text: 'null (no condition)' }));
    select.addEventListener('change', () => onChange(JSON.parse(select.value)));
    if (condition.value === undefined) onChange(true);
    else select.value = JSON.stringify(condition.value);
    return select;
  }
  const options = condition.filter.master ? masterOptions(condition.filter.master) : null;
  const enumValues = item.enum ? item.enum.map((value) => ({ value, label: value })) : null;
  const choices = options ?? enumValues;
  if (isList(condition.op) && choices) {
    const select = el('select', { name, multiple: true, 'aria-label': `${condition.filter.key} values` });
    const chosen = new Set(Array.isArray(condition.value) ? condition.value : []);
    for (const choice of choices)
      select.append(
        el('option', {
          value: JSON.stringify(choice.value),
          text: choice.label,
          selected: chosen.has(choice.value),
        }),
      );
    select.addEventListener('change', () => {
      const values = [...select.selectedOptions].map((option) => JSON.parse(option.value));
      onChange(values.length > 0 ? values : undefined);
    });
    return select;
  }
  const numeric = item.type === 'integer' || item.type === 'number';
  const input = el('input', {
    name,
    type:
      kind === 'dateRange' || item.format === 'date'
        ? 'date'
        : isList(condition.op)
          ? 'text'
          : numeric
            ? 'number'
            : 'text',
    'aria-label': `${condition.filter.key} value`,
    placeholder: isList(condition.op) ? 'values separated by commas' : '',
  });
  if (condition.value !== undefined)
    input.value = Array.isArray(condition.value) ? condition.value.join(', ') : String(condition.value);
  input.addEventListener('input', () => {
    const raw = input.value.trim();
    if (raw === '') return onChange(undefined);
    if (isList(condition.op)) {
      const parts = raw
        .split(/[,、\n]/)
        .map((part) => part.trim())
        .filter((part) => part !== '');
      return onChange(parts.map((part) => (numeric && /^-?\d+(\.\d+)?$/.test(part) ? Number(part) : part)));
    }
    onChange(numeric && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw);
  });
  return input;
}

function conditionCard(condition) {
  const key = condition.filter.key;
  const card = el('div', { class: 'condition', 'data-condition': key });
  const remove = el('button', { type: 'button', text: '外す', 'aria-label': `Remove ${key}` });
  remove.addEventListener('click', () => removeCondition(condition));
  const opSelect = el('select', { name: `op-${key}`, 'aria-label': `${key} operator` });
  for (const entry of condition.filter.conditions)
    opSelect.append(el('option', { value: entry.op, text: opLabels[entry.op] ?? entry.op }));
  opSelect.value = condition.op;
  const valueSlot = el('div');
  const mountEditor = () => {
    valueSlot.replaceChildren(
      valueEditor(condition, (value) => {
        condition.value = value;
        update();
      }),
    );
  };
  opSelect.addEventListener('change', () => {
    condition.op = opSelect.value;
    condition.value = undefined;
    mountEditor();
    update();
  });
  mountEditor();
  card.append(
    el('div', { class: 'title' }, el('span', {}, ...labelled(condition.filter.label, key)), remove),
    el('div', { class: 'description', text: condition.filter.description }),
    el('div', { class: 'row' }, opSelect),
    valueSlot,
  );
  return card;
}

function renderConditions() {
  $('conditions').replaceChildren(...state.conditions.map(conditionCard));
  $('no-conditions').hidden = state.conditions.length > 0;
}

/** A condition's values as a person reads them: master names where the list is loaded. */
function valueText(condition) {
  const values = Array.isArray(condition.value) ? condition.value : [condition.value];
  const names = condition.filter.master ? masterOptions(condition.filter.master) : null;
  return values
    .map((value) => {
      const option = names?.find((entry) => entry.value === value);
      return option ? option.label.replace(/ \([^)]*\)$/, '') : String(value);
    })
    .join('、');
}

/** The conditions in force as chips above the results, each removable. */
function renderChips() {
  const chips = state.conditions
    .filter((condition) => condition.value !== undefined)
    .map((condition) => {
      const remove = el('button', {
        type: 'button',
        class: 'chip-remove',
        text: '×',
        'aria-label': `${condition.filter.label} を外す`,
      });
      remove.addEventListener('click', () => removeCondition(condition));
      return el(
        'span',
        { class: 'chip', 'data-chip': condition.filter.key, title: condition.filter.key },
        el('span', { class: 'chip-label', text: condition.filter.label }),
        el('span', { text: ` ${opLabels[condition.op] ?? condition.op}: ${valueText(condition)}` }),
        remove,
      );
    });
  $('chips').replaceChildren(...chips);
}

// ---- the search state, bodies and curl ----------------------------------------------------

function filtersObject(conditions) {
  const filters = {};
  for (const condition of conditions) {
    if (condition.value === undefined) continue;
    const key = condition.filter.key;
    if (condition.op === 'is') filters[key] = condition.value;
    else filters[key] = { ...filters[key], [condition.op]: condition.value };
  }
  return filters;
}

/** What the URL and a saved search hold: the kind, filters, sort and page size. */
function searchState() {
  const sortField = $('sort-field').value;
  return {
    kind: state.search,
    filters: filtersObject(state.conditions),
    sort: sortField ? `${sortField}:${$('sort-order').value}` : '',
    limit: Number($('limit').value) || 25,
  };
}

/** The body of a search without paging: what count and export take. */
function searchBody() {
  const { filters, sort } = searchState();
  const body = {};
  if (Object.keys(filters).length > 0) body.filters = filters;
  if (sort) {
    const [field, order] = sort.split(':');
    body.sort = { field, order };
  }
  return body;
}

/** The body of one page: the search, its size and cursor; the first page also asks for facets. */
function pageBody(cursor) {
  const body = { limit: Number($('limit').value) || 25, cursor };
  if (!$('include-total').checked) body.includeTotalResults = false;
  const facets = currentSearch()?.facets.map((facet) => facet.key) ?? [];
  if (cursor === '*' && facets.length > 0) body.facets = facets;
  return { ...body, ...searchBody() };
}

function shellQuote(text) {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function curlCommand(path, body) {
  // the key comes from a variable on stdin, never the command line (ps, shell history)
  return [
    "curl -sS -H @- -H 'Content-Type: application/json' \\",
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -d ${shellQuote(JSON.stringify(body))} \\`,
    `  ${location.origin}${path} <<< "X-API-Key: $API_KEY"`,
  ].join('\n');
}

function showBody(body) {
  $('body-json').textContent = JSON.stringify(body, null, 2);
  $('curl').textContent = curlCommand(currentSearch()?.path ?? '', body);
}

/** The search changed: show its first page's body, start paging afresh, keep the URL in step. */
function update() {
  state.pages = { cursors: ['*'], starts: [0], kept: [], index: 0 };
  $('prev-page').disabled = true;
  $('next-page').disabled = true;
  showBody(pageBody('*'));
  renderChips();
  writeUrl();
  exportPanel.reset();
}

// ---- running ------------------------------------------------------------------------------

async function postJson(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-API-Key': apiKey(),
      'Idempotency-Key': crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ message: 'The response was not JSON.' }));
  const credits = response.headers.get('x-credits-remaining');
  if (credits !== null) state.credits = Number(credits);
  return { response, data };
}

function showError(response, data) {
  const requestId = response.headers.get('x-request-id');
  $('summary').textContent = `${response.status}: ${data.message ?? 'failed'} (request ${requestId})`;
  $('errors').replaceChildren(
    ...(data.errors ?? []).map((error) => el('li', { text: `${error.field}: ${error.reason}` })),
  );
}

/**
 * Company search with posting conditions: the postings that made the page's companies match,
 * from job search with the same posting conditions (under job search's names) and the page's
 * corporate numbers. One more search (its credit); the first posting per company is shown.
 */
async function matchedPostings(search, results) {
  const names = search.postingFilters ?? {};
  const posting = state.conditions.filter((condition) => names[condition.filter.key]);
  if (!$('show-postings').checked || posting.length === 0 || results.length === 0) return undefined;
  const filters = {};
  for (const [key, value] of Object.entries(filtersObject(posting))) filters[names[key]] = value;
  filters.corporateNumber = { any: results.map((record) => record.corporateNumber) };
  const jobs = state.catalogue.find((entry) => entry.name === 'jobs');
  const { response, data } = await postJson(jobs.path, {
    limit: 1000,
    includeTotalResults: false,
    fields: ['id', 'corporateNumber', 'title', 'mediaName', 'descriptionSnippets'],
    filters,
  });
  if (!response.ok) return undefined;
  const byCompany = new Map();
  for (const job of data.results)
    if (!byCompany.has(job.corporateNumber)) byCompany.set(job.corporateNumber, job);
  return byCompany;
}

function showSummary(response, data, index, shownRows) {
  const start = state.pages.starts[index];
  const total =
    data.totalResults === null ? '件数は数えていません' : `${data.totalResults.toLocaleString('ja')} 件`;
  const rows = shownRows === 0 ? '0 件' : `${start + 1}-${start + shownRows} 件目`;
  $('summary').textContent =
    `${total} · ${index + 1} ページ目 (${rows}) · 残りクレジット ${state.credits ?? 'n/a'} · request ${response.headers.get('x-request-id')}`;
  $('summary').dataset.total = String(data.totalResults);
  $('summary').dataset.page = String(index + 1);
}

/** Puts a page on the screen (fetched now, or kept from before) and sets the paging buttons. */
function showPage(index) {
  const search = currentSearch();
  const shown = state.pages.kept[index];
  state.pages.index = index;
  if (shown.data.facets) renderFacets($('facets'), search, shown.data.facets, addFacetValue);
  renderResults($('results'), search, shown.data, shown.postings);
  showSummary(shown.response, shown.data, index, shown.data.results.length);
  showBody(shown.body);
  $('prev-page').disabled = index === 0;
  $('next-page').disabled = !state.pages.kept[index + 1] && !state.pages.cursors[index + 1];
}

/**
 * Page `index` of the search. A page already received is shown again as it was (the cursor
 * only goes forward, and the API closes its snapshot after the last page), so going back costs
 * nothing; a new page is fetched with the cursor the page before answered ('*' the first).
 */
async function runPage(index) {
  const search = currentSearch();
  if (!search) return;
  $('errors').replaceChildren();
  if (state.pages.kept[index]) return showPage(index);
  if (!apiKey()) {
    state.pendingRun = true;
    $('summary').textContent = 'API キーを入力してください。';
    return;
  }
  state.pendingRun = false;
  $('summary').textContent = '検索中…';
  delete $('summary').dataset.total;
  const body = pageBody(state.pages.cursors[index]);
  showBody(body);
  const { response, data } = await postJson(search.path, body);
  if (!response.ok) return showError(response, data);
  const postings = search.name === 'corporates' ? await matchedPostings(search, data.results) : undefined;
  state.pages.kept[index] = { response, data, postings, body };
  state.pages.starts[index + 1] = state.pages.starts[index] + data.results.length;
  if (data.nextCursor) state.pages.cursors[index + 1] = data.nextCursor;
  showPage(index);
}

// ---- the URL and saved searches -----------------------------------------------------------

function writeUrl() {
  if ($('search-view').hidden) return;
  state.writtenHash = stateToHash(searchState());
  history.replaceState(null, '', state.writtenHash);
  $('search-link').href = location.href;
  $('search-link').textContent = decodeURIComponent(location.href);
}

function renderSortFields() {
  const search = currentSearch();
  const select = $('sort-field');
  select.replaceChildren(
    el('option', { value: '', text: `既定 (${search.defaultSort.field} ${search.defaultSort.order})` }),
  );
  for (const field of search.sortFields)
    select.append(el('option', { value: field, text: `${search.fieldLabels[field] ?? field} (${field})` }));
}

function switchSearch(kind) {
  state.search = kind;
  $('search-kind').value = kind;
  state.conditions = [];
  $('facets').replaceChildren();
  $('results').tHead.replaceChildren();
  $('results').tBodies[0].replaceChildren();
  renderSortFields();
  renderFilterGroups();
}

/** Puts a URL's or a saved search's state on the page (conditions, sort, size); `alsoDropped`: what the caller left out. */
function applyState(searchState, alsoDropped = []) {
  switchSearch(searchState.kind);
  const search = currentSearch();
  const found = conditionsOf(search, searchState.filters ?? {});
  const { conditions } = found;
  const dropped = [...alsoDropped, ...found.dropped];
  state.conditions = conditions.map((condition) => ({ id: state.nextId++, ...condition }));
  const [field, order] = (searchState.sort ?? '').split(':');
  $('sort-field').value = search.sortFields.includes(field) ? field : '';
  $('sort-order').value = order === 'desc' ? 'desc' : 'asc';
  $('limit').value = String(searchState.limit ?? 25);
  renderConditions();
  update();
  $('errors').replaceChildren(
    ...dropped.map((name) => el('li', { text: `${name}: この検索にない条件なので外しました` })),
  );
}

/** The user's saved searches (GET /rest/v1/saved-searches), newest first; [] without a key. */
async function savedSearchList() {
  if (!apiKey()) return [];
  const response = await fetch('/rest/v1/saved-searches', { headers: { 'X-API-Key': apiKey() } });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    showError(response, data);
    return [];
  }
  return data.results ?? [];
}

async function renderSaved(selectId) {
  const list = await savedSearchList();
  $('saved-list').replaceChildren(
    ...list.map((entry) => el('option', { value: entry.id, text: `${entry.name} (${entry.search})` })),
  );
  if (selectId) $('saved-list').value = selectId;
  $('open-saved').disabled = list.length === 0;
  $('delete-saved').disabled = list.length === 0;
  $('save-search').disabled = !apiKey();
}

/**
 * Searches an earlier console saved in this browser move to the API (one POST each) once a key
 * is entered; one the API refuses stays in the browser and is said so.
 */
async function moveBrowserSaved() {
  const left = [];
  for (const entry of browserSavedSearches()) {
    const { response } = await postJson('/rest/v1/saved-searches', {
      name: entry.name,
      ...toSavedSearch(entry),
    });
    if (response.status !== 201) left.push(entry);
  }
  keepBrowserSavedSearches(left);
  if (left.length > 0)
    $('errors').replaceChildren(
      ...left.map((entry) =>
        el('li', { text: `${entry.name}: このブラウザの保存済み検索を移せませんでした` }),
      ),
    );
}

async function saveCurrent() {
  const name = $('save-name').value.trim();
  if (!name || !apiKey()) return;
  const { response, data } = await postJson('/rest/v1/saved-searches', {
    name,
    ...toSavedSearch(searchState()),
  });
  if (response.status !== 201) {
    showError(response, data);
    return;
  }
  $('save-name').value = '';
  await renderSaved(data.id);
}

async function openSaved() {
  const id = $('saved-list').value;
  if (!id) return;
  const response = await fetch(`/rest/v1/saved-searches/${encodeURIComponent(id)}`, {
    headers: { 'X-API-Key': apiKey() },
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    showError(response, data);
    return;
  }
  const { state: saved, dropped } = fromSavedSearch(data);
  applyState(saved, dropped);
  await runPage(0);
}

async function deleteSaved() {
  const id = $('saved-list').value;
  if (!id) return;
  const response = await fetch(`/rest/v1/saved-searches/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    headers: { 'X-API-Key': apiKey() },
  });
  if (!response.ok) showError(response, await response.json().catch(() => ({})));
  await renderSaved();
}

function startSaved() {
  $('save-search').addEventListener('click', () => void saveCurrent());
  $('open-saved').addEventListener('click', () => void openSaved());
  $('delete-saved').addEventListener('click', () => void deleteSaved());
  $('copy-link').addEventListener('click', () => void navigator.clipboard?.writeText(location.href));
}

// ---- the key, the views, start --------------------------------------------------------------

function showKeyStatus() {
  $('key-status').textContent = apiKey() ? 'key set for this tab' : 'no key';
}

async function useKey() {
  const key = $('api-key').value.trim();
  $('api-key').value = '';
  if (key) sessionStorage.setItem(keyStorage, key);
  showKeyStatus();
  await loadMasters();
  await moveBrowserSaved();
  await renderSaved();
  renderConditions();
  renderChips();
  $('key-status').textContent =
    state.masters.size > 0
      ? 'key set for this tab; master lists loaded'
      : 'key set, but the master lists did not load (is the key valid?)';
  if (state.pendingRun && apiKey()) await runPage(0);
  if (location.hash.startsWith('#usage')) await usagePanel.show();
  if (location.hash.startsWith('#webhooks')) await webhooksPanel.show();
  if (location.hash.startsWith('#match')) await matchPanel.show();
}

/** #match shows the list matcher, #usage the usage, #webhooks the webhooks, anything else the search builder. */
function showView() {
  const match = location.hash.startsWith('#match');
  const usage = location.hash.startsWith('#usage');
  const webhooks = location.hash.startsWith('#webhooks');
  $('search-view').hidden = match || usage || webhooks;
  $('match-view').hidden = !match;
  $('usage-view').hidden = !usage;
  $('webhooks-view').hidden = !webhooks;
  $('tab-search').classList.toggle('active', !match && !usage && !webhooks);
  $('tab-match').classList.toggle('active', match);
  $('tab-usage').classList.toggle('active', usage);
  $('tab-webhooks').classList.toggle('active', webhooks);
  if (usage && apiKey()) void usagePanel.show();
  if (webhooks && apiKey()) void webhooksPanel.show();
  if (match && apiKey()) void matchPanel.show();
}

/** A search URL opened (or pasted into this tab): restore it and run it once there is a key. */
function openUrlSearch() {
  const fromUrl = hashToState(location.hash);
  if (!fromUrl || location.hash === state.writtenHash) return false;
  applyState(fromUrl);
  state.pendingRun = true;
  if (!apiKey()) $('summary').textContent = 'API キーを入力すると、この URL の検索を実行します。';
  return true;
}

function wireSearchControls() {
  $('search-kind').addEventListener('change', () => {
    switchSearch($('search-kind').value);
    renderConditions();
    update();
  });
  $('filter-search').addEventListener('input', renderFilterGroups);
  for (const id of ['limit', 'include-total', 'sort-field', 'sort-order'])
    $(id).addEventListener('change', update);
  $('run').addEventListener('click', () => void runPage(0));
  $('prev-page').addEventListener('click', () => void runPage(state.pages.index - 1));
  $('next-page').addEventListener('click', () => void runPage(state.pages.index + 1));
  $('use-key').addEventListener('click', () => void useKey());
  $('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(keyStorage);
    showKeyStatus();
    void renderSaved();
  });
  $('copy-curl').addEventListener('click', () => void navigator.clipboard?.writeText($('curl').textContent));
  window.addEventListener('hashchange', () => {
    showView();
    if (openUrlSearch() && apiKey()) void runPage(0);
    else writeUrl();
  });
}

async function start() {
  usagePanel = startUsage({ el, apiKey });
  webhooksPanel = startWebhooks({ el, apiKey });
  showView();
  matchPanel = await startMatch({ el, apiKey });
  state.catalogue = await (await fetch('/console/catalogue.json')).json();
  switchSearch('corporates');
  renderConditions();
  exportPanel = startExport({ apiKey, currentSearch, searchBody, credits: () => state.credits });
  if (!openUrlSearch()) update();
  showKeyStatus();
  wireSearchControls();
  startSaved();
  await renderSaved();
  if (apiKey()) await useKey();
  document.body.dataset.ready = 'true';
}

/** Set at start; update() resets it whenever the search changes. */
let exportPanel = { reset() {} };
/** Set at start: the #usage view. */
let usagePanel = { show: async () => {} };
/** Set at start: the #webhooks view. */
let webhooksPanel = { show: async () => {} };
/** Set at start: the #match view's list of match jobs. */
let matchPanel = { show: async () => {} };

void start();
