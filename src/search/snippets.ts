/**
 * `descriptionSnippets` of job results (docs/api.md, "Records"): at most 5 excerpts of the
 * detail text. Only detail-text conditions are highlighted, matched words in `<mark>`, every
 * other character HTML-escaped by the highlighter's html encoder. Without a detail-text
 * condition the excerpt is the opening of the text (no marks), or none when there is no text:
 * read from the document's `descriptionOpening` doc values (./opening.ts), so such a search
 * does not highlight; a document without that value (written before the field, or a text whose
 * excerpt the indexer could not be sure of) is answered by the highlighter's `no_match_size`
 * (./records.ts `sourceFetchFor`), which gives the same text.
 *
 *   plan with jobDescriptionPartialMatchOr: ['Java']
 *   -> highlight.fields.description.highlight_query = { bool: { should: [{ match_phrase: { description: 'Java' } }] } }
 *   hit.highlight.description = ['…経験者歓迎 <mark>Java</mark> &lt;b&gt;…'] -> descriptionSnippets
 */
import type { Types } from '../opensearch/engine.js';
import type { Query } from './compile-kinds.js';
import { openingField } from './opening.js';
import type { SearchPlan } from './plan.js';

export const maxSnippets = 5;
const snippetField = 'description';

/** The strings of the positive detail-text conditions, across `filters` and every group. */
function highlightedTexts(plan: Pick<SearchPlan, 'conditions' | 'groups'>): string[] {
  const texts = [...plan.conditions, ...plan.groups.flat()]
    .filter(({ def, op }) => def.kind === 'detailText' && (op === 'anyContains' || op === 'allContains'))
    .flatMap(({ value }) => value as string[]);
  return [...new Set(texts)];
}

/** Whether the search has a positive detail-text condition: only then does it highlight. */
export function highlightsDetailText(plan: Pick<SearchPlan, 'conditions' | 'groups'>): boolean {
  return highlightedTexts(plan).length > 0;
}

export function compileSnippetHighlight(
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
): Types.Core_Search.Highlight {
  const texts = highlightedTexts(plan);
  const highlightQuery: Query =
    texts.length > 0
      ? {
          bool: {
            should: texts.map((text) => ({ match_phrase: { [snippetField]: text } })),
            minimum_should_match: 1,
          },
        }
      : { match_none: {} };
  return {
    encoder: 'html',
    pre_tags: ['<mark>'],
    post_tags: ['</mark>'],
    fields: {
      [snippetField]: {
        type: 'unified',
        number_of_fragments: maxSnippets,
        fragment_size: 120,
        // the opening excerpt when nothing is highlighted (also with no detail-text condition)
        no_match_size: 160,
        highlight_query: highlightQuery,
      },
    },
  };
}

/**
 * The highlighter's request for the opening excerpt alone (no detail-text condition): what a
 * page whose documents lack `descriptionOpening` is asked again with.
 */
export const openingHighlight = compileSnippetHighlight({ conditions: [], groups: [] });

/** The snippets of one hit: the highlighter's fragments, at most 5. */
export function toSnippets(highlight: Record<string, string[]> | undefined): string[] {
  return (highlight?.[snippetField] ?? []).slice(0, maxSnippets);
}

/** The opening's doc value of a hit: the excerpt, '' (no text), or undefined (not written). */
export function openingOf(fields: Record<string, unknown[] | undefined> | undefined): string | undefined {
  const value = fields?.[openingField]?.[0];
  return typeof value === 'string' ? value : undefined;
}

/** The snippets of one hit: its opening's doc value when fetched, else the highlighter's. */
export function snippetsOf(hit: {
  fields?: Record<string, unknown[] | undefined>;
  highlight?: Record<string, string[]>;
}): string[] {
  const opening = openingOf(hit.fields);
  if (opening === undefined) return toSnippets(hit.highlight);
  return opening === '' ? [] : [opening];
}
