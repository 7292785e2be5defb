/**
 * Which company fields the corporate-number registry owns (docs/index-documents.md, "Who writes
 * which field"): once a company has a `registry` object, only `npm run import:registry` writes
 * these; the postings pipeline's corporate records leave them as the registry wrote them
 * (indexer/batch-plan.ts) and write the rest (phone, website, employees, ...).
 *
 *   registryOwnedDocFields -> ['name', 'furigana', 'corporateType', 'corporateTypeLabel', ...,
 *                              'nameKey', 'readingKey', ...]
 */
import { nameKeyFieldNames } from './name-keys.js';

/** The company fields a registry row sets, with the labels and name keys derived from them. */
export const registryOwnedDocFields = [
  'name',
  'furigana',
  'corporateType',
  'corporateTypeLabel',
  'postalCode',
  'prefectureId',
  'prefectureName',
  'cityName',
  'streetAddress',
  // derived from the name and the reading, so they follow the registry's name
  ...nameKeyFieldNames,
] as const;

/** The stored document has been written by the registry: its owned fields are the registry's. */
export function isRegistryCompany(doc: Record<string, unknown> | undefined): boolean {
  return Boolean(doc && typeof doc.registry === 'object' && doc.registry !== null);
}
