/**
 * The text fold, as code. Searches do not need it: every text field's analyzer is also its
 * search analyzer, so the engine folds query text with the very `text_fold` char filter of
 * mappings/analysis.json that folded the indexed text (㈱ and (株) both become "(株)"). This
 * applies the same rules the same way (the longest rule at each position, the output never
 * re-read), for code that has to predict a match without the engine: the property tests'
 * model, the benchmarks.
 *
 *   foldText('㈱ﾏﾙｶﾌﾞ Ⅲ') === '(株)マルカブ iii'
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

interface FoldTable {
  rules: Map<string, string>;
  longest: number;
}

let table: FoldTable | undefined;

/** A rule side as the engine reads it: `\uXXXX` and `\\` escapes, the rest literal. */
function unescapeRule(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|\\)/g, (_, code: string) =>
    code === '\\' ? '\\' : String.fromCharCode(Number.parseInt(code.slice(1), 16)),
  );
}

function loadTable(): FoldTable {
  const settings = JSON.parse(readFileSync(path.join(projectRoot, 'mappings', 'analysis.json'), 'utf8')) as {
    analysis: { char_filter: { text_fold: { mappings: string[] } } };
  };
  const rules = new Map<string, string>();
  let longest = 1;
  for (const rule of settings.analysis.char_filter.text_fold.mappings) {
    const at = rule.indexOf('=>');
    const from = unescapeRule(rule.slice(0, at));
    rules.set(from, unescapeRule(rule.slice(at + 2)));
    longest = Math.max(longest, from.length);
  }
  return { rules, longest };
}

export function foldText(text: string): string {
  table ??= loadTable();
  const { rules, longest } = table;
  let out = '';
  let i = 0;
  while (i < text.length) {
    let matched = false;
    for (let length = Math.min(longest, text.length - i); length > 0; length--) {
      const to = rules.get(text.slice(i, i + length));
      if (to !== undefined) {
        out += to;
        i += length;
        matched = true;
        break;
      }
    }
    if (!matched) {
      out += text[i];
      i += 1;
    }
  }
  return out;
}
