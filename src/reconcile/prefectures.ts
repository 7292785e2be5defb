/**
 * A prefecture as a user types it in a spreadsheet column, to its JIS code, from the
 * prefectures master (data/masters/prefectures.json): the name (東京都), the name without its
 * 都/道/府/県 (東京, 大阪, but 北海道 as is), the reading (とうきょうと, とうきょう, トウキョウ),
 * the romaji (Tokyo, TOKYO, Tokyo-to, Tokyo Prefecture) or the code itself (13, "13", "０１").
 * Width and letter case do not count. Anything else: undefined.
 */
import { loadMasters } from '../masters/lookups.js';

/** NFKC, lower case, no spaces, hyphens or dots; katakana as hiragana. */
function fold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\-‐・.]/g, '')
    .replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));
}

let byName: Map<string, number> | undefined;

function names(): Map<string, number> {
  if (byName) return byName;
  const map = new Map<string, number>();
  // every item has an id, a name, its reading and its romaji (data/masters/prefectures.json,
  // each found by them in test/reconcile/reconcile-queries.test.ts)
  for (const item of loadMasters().lists.prefectures) {
    const { name } = item;
    const kana = item.nameKana as string;
    const romaji = fold(item.nameRomaji as string);
    const spellings = [
      name,
      kana,
      romaji,
      `${romaji}prefecture`,
      `${romaji}ken`,
      `${romaji}fu`,
      `${romaji}to`,
    ];
    // 東京都 -> 東京 (とうきょう), 京都府 -> 京都; 北海道 keeps its 道 (北海 names nothing)
    if (/[都府県]$/.test(name)) spellings.push(name.slice(0, -1), kana.replace(/(と|ふ|けん)$/, ''));
    for (const spelling of spellings) map.set(fold(spelling), item.id as number);
  }
  // ASCII-folded forms above leave these two long vowels out; the Hepburn ones users write
  map.set('tōkyō', 13);
  map.set('ōsaka', 27);
  byName = map;
  return map;
}

export function prefectureIdOf(text: string): number | undefined {
  const folded = fold(text);
  if (/^\d{1,2}$/.test(folded)) {
    const id = Number(folded);
    return id >= 1 && id <= 47 ? id : undefined;
  }
  return names().get(folded);
}

/** The master's name of a prefecture id (東京都), undefined for an unknown id. */
export function prefectureName(id: number): string | undefined {
  return loadMasters().prefecture.get(id);
}
