/**
 * The master id a record's text names: gBizINFO writes who granted a subsidy, or which
 * certification or award a row is, as free text; the masters (data/masters/government-bodies,
 * certification-kinds, award-kinds) list the names that identify each id (`name`, and
 * `matchedBy` where a kind goes by several). The id is the one whose text appears in the row's:
 * a name before any `matchedBy` text (a title that writes the brand and, after it, the generic
 * wording of a plainer kind is the brand), then the longest text, and of texts as long the one
 * written last (`経済産業省 中小企業庁` is the agency); both sides compared in NFKC form (ＤＸ認定 =
 * DX認定). 999 when none appears.
 *
 *   listedIdOf('certification-kinds', 'プラチナくるみん認定') // 4, not くるみん's 3
 *   listedIdOf('certification-kinds', 'トライくるみん（子育てサポート企業）') // 5: a name beats 3's wording
 */
import { readMasterFile } from '../../src/masters/masters.js';

export type ListedMaster = 'government-bodies' | 'certification-kinds' | 'award-kinds';

interface Entry {
  id: number;
  text: string;
  /** the item's own name, not one of its `matchedBy` texts */
  isName: boolean;
}

const entries = new Map<ListedMaster, Entry[]>();

function entriesOf(master: ListedMaster): Entry[] {
  let list = entries.get(master);
  if (!list) {
    const items = readMasterFile(master).items as Array<{ id: number; name: string; matchedBy?: string[] }>;
    list = items
      .filter((item) => item.id !== 999)
      .flatMap((item) => {
        const name = item.name.normalize('NFKC');
        const aliases = (item.matchedBy ?? [])
          .map((text) => text.normalize('NFKC'))
          .filter((text) => text !== name);
        return [
          { id: item.id, text: name, isName: true },
          ...[...new Set(aliases)].map((text) => ({ id: item.id, text, isName: false })),
        ];
      });
    entries.set(master, list);
  }
  return list;
}

export function listedIdOf(master: ListedMaster, text: string): number {
  const folded = text.normalize('NFKC');
  let best: { id: number; isName: boolean; length: number; at: number } | undefined;
  for (const entry of entriesOf(master)) {
    const at = folded.lastIndexOf(entry.text);
    if (at < 0) continue;
    const better =
      !best ||
      (entry.isName && !best.isName) ||
      (entry.isName === best.isName &&
        (entry.text.length > best.length || (entry.text.length === best.length && at > best.at)));
    if (better) best = { id: entry.id, isName: entry.isName, length: entry.text.length, at };
  }
  return best?.id ?? 999;
}
