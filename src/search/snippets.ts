/**
 * `descriptionSnippets` of job results (docs/api.md, "Records"): at most 5 excerpts of the
 * detail text. Only detail-text conditions are highlighted, matched words in `<mark>`, every
 * other character HTML-escaped by the highlighter's html encoder. Without a detail-text
 * condition the excerpt is the opening of the text (no marks), or none when there is no text.
 *
 *   plan with jobDescriptionPartialMatchOr: ['Java']
 *   -> highlight.fields.description.highlight_query = { bool: { should: [{ match_phrase: { description: 'Java' } }] } }
 *   hit.highlight.description = ['…経験者歓迎 <mark>Java</mark> &lt;b&gt;…'] -> descriptionSnippets
 */
import type { Types } from '@opensearch-project/opensearch';
import type { Query } from './compile-kinds.js';
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

/** The snippets of one hit: the highlighter's fragments, at most 5. */
export function toSnippets(highlight: Record<string, string[]> | undefined): string[] {
  return (highlight?.[snippetField] ?? []).slice(0, maxSnippets);
}
