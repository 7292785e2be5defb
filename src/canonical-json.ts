/**
 * JSON text with object keys sorted: the same value gives the same text whatever order its
 * objects' keys came in (the engine may hand `_source` objects back in another order). Used to
 * compare values: a company's copy on its postings (indexer/rebuild.ts), a watched field's
 * value (src/saved-searches/membership.ts).
 *
 *   canonicalJson({ b: 1, a: [{ d: null, c: 2 }] })  // '{"a":[{"c":2,"d":null}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key] ?? null)}`,
      )
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}
