/**
 * "Did you mean ...?" for a field the request schema does not define: the closest name the
 * schema allows at that place (fastest-levenshtein), when it is close enough to be a typo.
 *
 *   filters.prefectureID -> 'is not a field of this request; did you mean "prefectureId"?'
 */
import { closest, distance } from 'fastest-levenshtein';

type Schema = {
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
};
type Document = { components?: { schemas?: Record<string, Schema> } };

function resolve(document: Document, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 20; depth += 1) {
    current = document.components?.schemas?.[current.$ref.replace('#/components/schemas/', '')];
  }
  return current;
}

/** The property names allowed by `root` at `segments` (a path below the body), if an object. */
export function namesAt(document: Document, root: Schema | undefined, segments: readonly string[]): string[] {
  let schema = resolve(document, root);
  for (const segment of segments) {
    if (!schema) return [];
    schema = resolve(document, /^\d+$/.test(segment) ? schema.items : schema.properties?.[segment]);
  }
  return Object.keys(schema?.properties ?? {});
}

/** The allowed name a misspelt `name` most likely meant, or undefined when none is close. */
export function suggestName(name: string, allowed: readonly string[]): string | undefined {
  if (allowed.length === 0) return undefined;
  const sameLetters = allowed.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (sameLetters) return sameLetters;
  // two letters swapped (`mni` for `min`) counts as one slip, which plain edit distance does not see
  const letters = (text: string) => [...text.toLowerCase()].sort().join('');
  const swapped = allowed.find((candidate) => letters(candidate) === letters(name));
  if (swapped) return swapped;
  const best = closest(name, [...allowed]);
  // a typo, not a different word: at most 1 edit in 4 letters, and never more than 3
  const tolerance = Math.min(3, Math.max(1, Math.floor(name.length / 4)));
  return distance(name, best) <= tolerance ? best : undefined;
}

/** `is not a field of this request; did you mean "prefectureId"?`, or without the question. */
export function unknownFieldReason(name: string | undefined, allowed: readonly string[]): string {
  const reason = 'is not a field of this request';
  const suggestion = name === undefined ? undefined : suggestName(name, allowed);
  return suggestion ? `${reason}; did you mean "${suggestion}"?` : reason;
}
