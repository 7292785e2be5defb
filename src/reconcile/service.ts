/**
 * The reconciliation service's manifest, its suggest answers and its preview page, as plain
 * values (docs/reconciliation.md). The URLs in the manifest are built from the URL the client
 * used for the manifest, so OpenRefine calls back the host it was given; the API key, when the
 * service URL carries one (`?apiKey=`), is carried into the suggest and preview URLs, since a
 * client of the spec cannot add a header of its own to them.
 */
import type { Suggestion } from '../names/suggest.js';
import { prefectureName } from './prefectures.js';
import { corporationType, descriptionOf, maxBatchSize, reconcileProperties } from './queries.js';

/** The path of the service under the API base; the manifest answers GET on it. */
export const reconcilePath = '/reconcile';
/** The query parameter a reconciliation client sends its API key in. */
export const apiKeyParameter = 'apiKey';

/**
 * The corporate number's namespace: the National Tax Agency issues the numbers and publishes
 * a page for each, so services keyed on them can share these two URIs.
 */
export const identifierSpace = 'https://www.houjin-bangou.nta.go.jp/';
export const schemaSpace = 'https://schema.org/Corporation';
/** The registry's public page of a company (no key needed): OpenRefine's link of a candidate. */
export const viewTemplate = 'https://www.houjin-bangou.nta.go.jp/henkorireki-johoto.html?selHouzinNo={{id}}';

export const previewSize = { width: 420, height: 110 } as const;

export interface ServiceUrls {
  /** `https://host/rest/v1/reconcile`, as the client reached it. */
  endpoint: string;
  /** The key as the client sent it in the query string, to carry into the other URLs. */
  apiKey?: string;
}

/** `?apiKey=...&` or `?`: the start of a query string for the service's other URLs. */
function queryStart(apiKey: string | undefined): string {
  return apiKey === undefined ? '?' : `?${apiKeyParameter}=${encodeURIComponent(apiKey)}&`;
}

export function manifestOf(urls: ServiceUrls): Record<string, unknown> {
  const start = queryStart(urls.apiKey);
  // a suggest URL is service_url + service_path, and the client adds `prefix` with `&` when
  // it finds a `?` already there; the key therefore goes in the path's query string
  const keyOnly = urls.apiKey === undefined ? '' : start.slice(0, -1);
  return {
    versions: ['0.2'],
    name: 'corpsearch: Japanese companies by corporate number',
    identifierSpace,
    schemaSpace,
    documentation: `${urls.endpoint.replace(/\/rest\/v1\/reconcile$/, '')}/docs`,
    defaultTypes: [{ ...corporationType }],
    view: { url: viewTemplate },
    preview: { url: `${urls.endpoint}/preview${start}id={{id}}`, ...previewSize },
    suggest: {
      entity: { service_url: urls.endpoint, service_path: `/suggest/entity${keyOnly}` },
      property: { service_url: urls.endpoint, service_path: `/suggest/property${keyOnly}` },
    },
    batchSize: maxBatchSize,
    authentication: {
      type: 'apiKey',
      name: apiKeyParameter,
      in: 'query',
      description: 'The API key (the one the X-API-Key header carries elsewhere in this API)',
    },
  };
}

/** Entities whose name starts with the prefix, as the spec's suggest response. */
export function entitySuggestions(suggestions: Suggestion[]): { result: Array<Record<string, unknown>> } {
  return {
    result: suggestions.map((suggestion) => {
      const description = descriptionOf(suggestion, prefectureName);
      const former = suggestion.formerName ? `旧商号 ${suggestion.formerName}` : undefined;
      const text = [former, description].filter(Boolean).join(' / ');
      return {
        id: suggestion.corporateNumber,
        name: suggestion.name,
        ...(text ? { description: text } : {}),
        notable: [{ ...corporationType }],
      };
    }),
  };
}

/** The properties whose id or name starts with the prefix (letter case does not count). */
export function propertySuggestions(prefix: string): { result: Array<Record<string, unknown>> } {
  const wanted = prefix.trim().toLowerCase();
  return {
    result: reconcileProperties
      .filter(
        (property) =>
          property.id.toLowerCase().startsWith(wanted) ||
          property.name.toLowerCase().startsWith(wanted) ||
          property.name.includes(prefix.trim()),
      )
      .map(({ id, name, description }) => ({ id, name, description })),
  };
}

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text for an HTML element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => htmlEscapes[c] as string);
}

/** The preview page of a company: name, reading, number, place; every value escaped. */
export function previewHtml(company: {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
}): string {
  const place = [
    company.prefectureId === null ? undefined : prefectureName(company.prefectureId),
    company.cityName ?? undefined,
  ]
    .filter(Boolean)
    .join('');
  const lines = [
    `<div class="name">${escapeHtml(company.name)}</div>`,
    company.furigana ? `<div class="kana">${escapeHtml(company.furigana)}</div>` : '',
    `<div>法人番号 ${escapeHtml(company.corporateNumber)}</div>`,
    place ? `<div>${escapeHtml(place)}</div>` : '',
  ].filter(Boolean);
  return [
    '<!DOCTYPE html>',
    '<html lang="ja"><head><meta charset="utf-8">',
    `<title>${escapeHtml(company.name)}</title>`,
    '<style>body{margin:6px;font:13px/1.4 sans-serif}.name{font-weight:bold;font-size:15px}.kana{color:#555}</style>',
    '</head><body>',
    ...lines,
    '</body></html>',
    '',
  ].join('\n');
}
