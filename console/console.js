// The query console: builds a search body from the filter catalogue (/console/catalogue.json),
// shows it with the matching curl command, runs it against /rest/v1 and shows the results.
// Plain browser JavaScript, no build step; loaded as a file so a strict CSP can forbid inline
// script. The API key lives in sessionStorage only (gone when the tab closes). The "match a
// list" view (#match) is match.js.

import { startMatch } from './match.js';

const keyStorage = 'corpsearch.apiKey';
const groupTitles = { company: 'Company', postings: 'Postings', detailText: 'Detail text' };
const opLabels = {
  any: 'is any of',
  none: 'is none of',
  anyContains: 'contains any of',
  allContains: 'contains all of',
  noneContains: 'contains none of',
  min: 'at least',
  max: 'at most',
  from: 'from (date)',
  to: 'to (date)',
  is: 'is',
};
const columns = {
  corporates: [
    ['corporateNumber', 'Corporate number'],
    ['name', 'Name'],
    ['prefectureName', 'Prefecture'],
    ['cityName', 'City'],
    ['industryCategoryName', 'Industry'],
    ['employeeCount', 'Employees'],
    ['workLocationCount', 'Work locations'],
  ],
  jobs: [
    ['id', 'Job id'],
    ['title', 'Title'],
    ['corporateName', 'Company'],
    ['mediaName', 'Medium'],
    ['employmentTypeName', 'Employment'],
    ['salaryMin', 'Salary from'],
    ['jobCreatedAt', 'Created'],
  ],
};

const state = {
  catalogue: [],
  search: 'corporates',
  /** [{ id, filter, op, value }] in the order added */
  conditions: [],
  masters: new Map(),
  nextId: 1,
};

const $ = (id) => document.getElementById(id);

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

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

function renderFilterGroups() {
  const container = $('filter-groups');
  container.replaceChildren();
  const query = $('filter-search').value.trim().toLowerCase();
  const search = currentSearch();
  if (!search) return;
  for (const group of Object.keys(groupTitles)) {
    const filters = search.filters.filter(
      (filter) =>
        filter.group === group &&
        (query === '' ||
          filter.key.toLowerCase().includes(query) ||
          filter.description.toLowerCase().includes(query)),
    );
    if (filters.length === 0) continue;
    const list = el('div', { class: 'filter-list' });
    for (const filter of filters) {
      const button = el('button', {
        type: 'button',
        title: filter.description,
        'data-filter': filter.key,
        text: filter.key,
      });
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

function addCondition(filter) {
  const condition = { id: state.nextId++, filter, op: filter.conditions[0].op, value: undefined };
  state.conditions.push(condition);
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
  if (kind === 'presence' || kind === 'flag' || kind === 'listed' || kind === 'inclusion') {
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
    type: kind === 'dateRange' ? 'date' : isList(condition.op) ? 'text' : numeric ? 'number' : 'text',
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

function renderConditions() {
  const container = $('conditions');
  container.replaceChildren();
  $('no-conditions').hidden = state.conditions.length > 0;
  for (const condition of state.conditions) {
    const card = el('div', { class: 'condition', 'data-condition': condition.filter.key });
    const remove = el('button', {
      type: 'button',
      text: 'Remove',
      'aria-label': `Remove ${condition.filter.key}`,
    });
    remove.addEventListener('click', () => {
      state.conditions = state.conditions.filter((other) => other !== condition);
      renderConditions();
      update();
    });
    const opSelect = el('select', {
      name: `op-${condition.filter.key}`,
      'aria-label': `${condition.filter.key} operator`,
    });
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
      el('div', { class: 'title' }, el('span', { text: condition.filter.key }), remove),
      el('div', { class: 'description', text: condition.filter.description }),
      el('div', { class: 'row' }, opSelect),
      valueSlot,
    );
    container.append(card);
  }
}

// ---- the body, curl, running --------------------------------------------------------------

function buildBody() {
  const body = {};
  const limit = Number($('limit').value);
  const offset = Number($('offset').value);
  if (limit) body.limit = limit;
  if (offset) body.offset = offset;
  if (!$('include-total').checked) body.includeTotalResults = false;
  const filters = {};
  for (const condition of state.conditions) {
    if (condition.value === undefined) continue;
    const key = condition.filter.key;
    if (condition.op === 'is') filters[key] = condition.value;
    else filters[key] = { ...filters[key], [condition.op]: condition.value };
  }
  if (Object.keys(filters).length > 0) body.filters = filters;
  const sortField = $('sort-field').value;
  if (sortField) body.sort = { field: sortField, order: $('sort-order').value };
  return body;
}

function shellQuote(text) {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function curlCommand(body) {
  const url = `${location.origin}${currentSearch()?.path ?? ''}`;
  // the key comes from a variable on stdin, never the command line (ps, shell history)
  return [
    "curl -sS -H @- -H 'Content-Type: application/json' \\",
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -d ${shellQuote(JSON.stringify(body))} \\`,
    `  ${url} <<< "X-API-Key: $API_KEY"`,
  ].join('\n');
}

function update() {
  const body = buildBody();
  $('body-json').textContent = JSON.stringify(body, null, 2);
  $('curl').textContent = curlCommand(body);
}

function cell(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function renderResults(search, data) {
  const thead = $('results').tHead;
  const tbody = $('results').tBodies[0];
  const cols = columns[search];
  thead.replaceChildren(el('tr', {}, ...cols.map(([, title]) => el('th', { text: title }))));
  tbody.replaceChildren(
    ...data.results.map((record) =>
      el(
        'tr',
        { 'data-id': search === 'corporates' ? record.corporateNumber : record.id },
        ...cols.map(([field]) => el('td', { text: cell(record[field]) })),
      ),
    ),
  );
}

async function run() {
  const search = currentSearch();
  if (!search) return;
  const body = buildBody();
  $('errors').replaceChildren();
  $('summary').textContent = 'Searching…';
  if (!apiKey()) {
    $('summary').textContent = 'Enter an API key first.';
    return;
  }
  const response = await fetch(search.path, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-API-Key': apiKey(),
      'Idempotency-Key': crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({ message: 'The response was not JSON.' }));
  const requestId = response.headers.get('x-request-id');
  if (!response.ok) {
    $('summary').textContent = `${response.status}: ${data.message ?? 'failed'} (request ${requestId})`;
    $('errors').replaceChildren(
      ...(data.errors ?? []).map((error) => el('li', { text: `${error.field}: ${error.reason}` })),
    );
    return;
  }
  const offset = body.offset ?? 0;
  const total = data.totalResults === null ? 'not counted' : data.totalResults.toLocaleString('en');
  const shown = data.results.length === 0 ? '0' : `${offset + 1}-${offset + data.results.length}`;
  const credits = response.headers.get('x-credits-remaining');
  $('summary').textContent =
    `${total} matching · showing ${shown} · credits left ${credits ?? 'n/a'} · request ${requestId}`;
  $('summary').dataset.total = String(data.totalResults);
  renderResults(state.search, data);
  $('prev-page').disabled = offset === 0;
  $('next-page').disabled = data.results.length < (body.limit ?? 25);
}

function page(direction) {
  const limit = Number($('limit').value) || 25;
  $('offset').value = String(Math.max(0, (Number($('offset').value) || 0) + direction * limit));
  update();
  void run();
}

function renderSortFields() {
  const search = currentSearch();
  const select = $('sort-field');
  select.replaceChildren(
    el('option', { value: '', text: `default (${search.defaultSort.field} ${search.defaultSort.order})` }),
  );
  for (const field of search.sortFields) select.append(el('option', { value: field, text: field }));
}

function showKeyStatus() {
  $('key-status').textContent = apiKey() ? 'key set for this tab' : 'no key';
}

async function useKey() {
  const key = $('api-key').value.trim();
  $('api-key').value = '';
  if (key) sessionStorage.setItem(keyStorage, key);
  showKeyStatus();
  await loadMasters();
  renderConditions();
  update();
  $('key-status').textContent =
    state.masters.size > 0
      ? 'key set for this tab; master lists loaded'
      : 'key set, but the master lists did not load (is the key valid?)';
}

/** #match shows the list matcher, anything else the search builder. */
function showView() {
  const match = location.hash === '#match';
  $('search-view').hidden = match;
  $('match-view').hidden = !match;
  $('tab-search').classList.toggle('active', !match);
  $('tab-match').classList.toggle('active', match);
}

async function start() {
  showView();
  window.addEventListener('hashchange', showView);
  await startMatch({ el, apiKey });
  state.catalogue = await (await fetch('/console/catalogue.json')).json();
  renderSortFields();
  renderFilterGroups();
  renderConditions();
  update();
  showKeyStatus();
  $('search-kind').addEventListener('change', () => {
    state.search = $('search-kind').value;
    state.conditions = [];
    $('offset').value = '0';
    renderSortFields();
    renderFilterGroups();
    renderConditions();
    update();
  });
  $('filter-search').addEventListener('input', renderFilterGroups);
  for (const id of ['limit', 'offset', 'include-total', 'sort-field', 'sort-order'])
    $(id).addEventListener('change', update);
  $('run').addEventListener('click', () => void run());
  $('prev-page').addEventListener('click', () => page(-1));
  $('next-page').addEventListener('click', () => page(1));
  $('use-key').addEventListener('click', () => void useKey());
  $('forget-key').addEventListener('click', () => {
    sessionStorage.removeItem(keyStorage);
    showKeyStatus();
  });
  $('copy-curl').addEventListener('click', () => void navigator.clipboard?.writeText($('curl').textContent));
  if (apiKey()) await useKey();
  document.body.dataset.ready = 'true';
}

void start();
