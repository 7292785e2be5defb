/**
 * express-openapi-validator (5.6) finds the operation of each request by trying its routes in
 * turn, and compiles each route's template into a regular expression (path-to-regexp's
 * `pathToRegexp`) every time it tries it: up to 16 compiles per request here, the same
 * templates every time. `cacheRouteMatchers()` makes that compile remember its answer per
 * template and options, so each template is compiled once per process; the lookup itself (its
 * order, its matching, its errors) is the library's, unchanged. Cost and figures:
 * docs/bench.md, "The request's own bookkeeping".
 *
 * The library calls the function through the module's exports object at each request, so the
 * cache is installed there, in the copy of path-to-regexp the library itself loads. Express's
 * router does not go through that export (it compiles its routes once, with `match`). Only
 * the options the validator passes (`sensitive`, `strict`) are cached; any other call goes
 * straight to the library, and the cache holds at most `maxTemplates` entries, so no caller
 * can grow it without bound.
 */
import { createRequire } from 'node:module';

interface Matcher {
  regexp: RegExp;
  keys: unknown[];
}
type Compile = ((path: unknown, options?: Record<string, unknown>) => Matcher) & { cachedTemplates?: true };

const maxTemplates = 1000;
/** Templates compiled through the cache (for its test: one compile per template). */
let compiles = 0;

/** path-to-regexp as express-openapi-validator resolves it. */
function validatorsPathToRegexp(): { pathToRegexp: Compile } {
  const requireHere = createRequire(import.meta.url);
  return createRequire(requireHere.resolve('express-openapi-validator'))('path-to-regexp') as {
    pathToRegexp: Compile;
  };
}

/** The options the validator's route lookup passes: no others, so the key says them all. */
function routeLookupOptions(options: Record<string, unknown> | undefined): boolean {
  if (options === undefined) return true;
  for (const name in options) if (name !== 'sensitive' && name !== 'strict') return false;
  return true;
}

export function cacheRouteMatchers(): void {
  const library = validatorsPathToRegexp();
  const compile = library.pathToRegexp;
  if (compile.cachedTemplates) return;
  const cache = new Map<string, Matcher>();
  const cached: Compile = (path, options) => {
    if (typeof path !== 'string' || !routeLookupOptions(options)) return compile(path, options);
    const key = `${options?.sensitive ? 's' : '-'}${options?.strict ? 's' : '-'}${path}`;
    let matcher = cache.get(key);
    if (!matcher) {
      matcher = compile(path, options);
      compiles++;
      if (cache.size < maxTemplates) cache.set(key, matcher);
    }
    return matcher;
  };
  cached.cachedTemplates = true;
  library.pathToRegexp = cached;
}

/** How many templates the cache has compiled so far in this process. */
export function routeMatcherCompiles(): number {
  return compiles;
}
