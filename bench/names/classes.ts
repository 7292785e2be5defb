/**
 * The names of the CRM classes of spelling (bench/names/crm-classes.ts writes them), kept apart
 * so that bench/name-variants.ts can name every class without importing the writers.
 */
export const crmClasses = [
  'letters-as-letter-names',
  'letter-names-variant-spelling',
  'letter-names-as-letters',
  'loanword-as-english',
  'english-as-loanword',
  'numerals-as-digits',
  'digits-as-numerals',
  'symbol-words',
  'latin-legal-suffix',
  'legal-form-one-character',
  'legal-form-square',
  'bank-transfer-kana',
  'invisible-characters',
  'department-word',
  'corporate-number-written',
  'reading-partly-kanji',
  'legal-form-decides',
  'word-dropped',
  'word-added',
  'typo-dropped',
  'typo-doubled',
  'typo-swapped',
  'typo-replaced',
  'name-of-no-company',
] as const;
export type CrmClass = (typeof crmClasses)[number];
