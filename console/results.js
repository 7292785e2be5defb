// The search view's answers on the page: the result table (labels from the catalogue, contact
// columns as links, the matching posting's excerpt beside a company) and the facet panel.

import { el } from './dom.js';

/** The columns of each search: record fields, plus `matchedPosting` (not a record field). */
export const columns = {
  // who to call first: the contacts and why the company is on the list, then the rest
  corporates: [
    'name',
    'phoneNumber',
    'websiteUrl',
    'email',
    'matchedPosting',
    'prefectureName',
    'cityName',
    'industryCategoryName',
    'employeeCount',
    'corporateNumber',
  ],
  jobs: [
    'title',
    'corporateName',
    'contactPhoneNumber',
    'contactEmail',
    'descriptionSnippets',
    'mediaName',
    'employmentTypeName',
    'salaryMin',
    'jobCreatedAt',
  ],
};
const extraLabels = { matchedPosting: '一致した求人' };

/** A label with the API name small beside it (and in the tooltip). */
export function labelled(label, apiName) {
  return [el('span', { class: 'ja', text: label }), el('small', { class: 'api', text: apiName })];
}

function text(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return typeof value === 'number' ? value.toLocaleString('ja') : String(value);
}

const entities = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(escaped) {
  return escaped.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name) => {
    if (name[0] !== '#') return entities[name.toLowerCase()] ?? whole;
    const code =
      name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
  });
}

/**
 * An excerpt as the API sends it (HTML-escaped text, matched words in <mark>) as DOM nodes:
 * text stays text, only <mark> becomes an element, so a posting's own markup never runs.
 */
export function snippetNodes(snippet) {
  const nodes = [];
  let marked = false;
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>' || part === '</mark>') {
      marked = part === '<mark>';
      continue;
    }
    if (part === '') continue;
    const decoded = decodeEntities(part);
    nodes.push(marked ? el('mark', { text: decoded }) : document.createTextNode(decoded));
  }
  return nodes;
}

/** A link only for http(s), mailto and tel values; anything else stays text. */
function contactCell(field, value) {
  if (typeof value !== 'string' || value === '') return el('td', { 'data-field': field });
  let href;
  if (field === 'websiteUrl' && /^https?:\/\//i.test(value)) href = value;
  else if (field === 'email' || field === 'contactEmail') href = `mailto:${value}`;
  else if (field === 'phoneNumber' || field === 'contactPhoneNumber')
    href = `tel:${value.replace(/[^\d+]/g, '')}`;
  const link = href
    ? el('a', {
        href,
        text: value,
        target: field === 'websiteUrl' ? '_blank' : undefined,
        rel: 'noopener noreferrer',
      })
    : value;
  return el('td', { 'data-field': field, class: 'contact' }, link);
}

function postingCell(posting) {
  const cell = el('td', { 'data-field': 'matchedPosting', class: 'posting' });
  if (!posting) return cell;
  cell.append(
    el('div', { class: 'posting-title', text: `${posting.title ?? ''} (${posting.mediaName ?? ''})` }),
  );
  const snippet = posting.descriptionSnippets?.[0];
  if (snippet) cell.append(el('div', { class: 'snippet' }, ...snippetNodes(snippet)));
  return cell;
}

function recordCell(field, record, postings) {
  if (field === 'matchedPosting') return postingCell(postings?.get(record.corporateNumber));
  if (['websiteUrl', 'email', 'phoneNumber', 'contactEmail', 'contactPhoneNumber'].includes(field))
    return contactCell(field, record[field]);
  if (field === 'descriptionSnippets') {
    const snippet = record.descriptionSnippets?.[0];
    return el('td', { 'data-field': field, class: 'snippet' }, ...(snippet ? snippetNodes(snippet) : []));
  }
  return el('td', { 'data-field': field, text: text(record[field]) });
}

/**
 * The table of one page. `postings`: corporate number -> the posting that matched (company
 * search with posting conditions), or undefined.
 */
export function renderResults(table, search, data, postings) {
  const cols = columns[search.name];
  const header = cols.map((field) => {
    const label = search.fieldLabels[field] ?? extraLabels[field] ?? field;
    return el('th', { title: field, 'data-field': field }, ...labelled(label, field));
  });
  table.tHead.replaceChildren(el('tr', {}, ...header));
  table.tBodies[0].replaceChildren(
    ...data.results.map((record) =>
      el(
        'tr',
        { 'data-id': search.name === 'corporates' ? record.corporateNumber : record.id },
        ...cols.map((field) => recordCell(field, record, postings)),
      ),
    ),
  );
}

/** Buckets shown per facet; the rest are one filter away. */
const bucketsShown = 12;

/** The facet panel: per facet its values with counts; `onPick(key, value)` adds the filter. */
export function renderFacets(container, search, facets, onPick) {
  container.replaceChildren();
  for (const { key, label } of search.facets) {
    const buckets = facets?.[key] ?? [];
    if (buckets.length === 0) continue;
    const list = el('div', { class: 'facet-values' });
    for (const bucket of buckets.slice(0, bucketsShown)) {
      const button = el(
        'button',
        {
          type: 'button',
          'data-facet': key,
          'data-value': JSON.stringify(bucket.value),
          title: `${key} = ${bucket.value}`,
        },
        el('span', { text: bucket.name ?? String(bucket.value) }),
        el('span', { class: 'count', text: bucket.count.toLocaleString('ja') }),
      );
      button.addEventListener('click', () => onPick(key, bucket.value));
      list.append(button);
    }
    container.append(
      el('div', { class: 'facet', 'data-facet-key': key }, el('h3', {}, ...labelled(label, key)), list),
    );
  }
}
