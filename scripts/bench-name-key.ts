/**
 * Micro-benchmark of the name keys (not a test): names per second for nameKey, readingKey,
 * romajiKey and queryKeys, over company names built from realistic parts (legal forms before
 * and after, widths, kana, variant kanji, branches). With --reading, also the load time and
 * names per second of the derived-reading analyser (src/names/reading.ts).
 *
 *   npx tsx scripts/bench-name-key.ts [--reading]
 */
import { performance } from 'node:perf_hooks';
import { nameKey, queryKeys, readingKey, romajiKey } from '../src/names/keys.js';
import { loadReadingAnalyser } from '../src/names/reading.js';

const cores = [
  'マルカ物流',
  'ﾏﾙｶﾌﾞﾂﾘｭｳ',
  '髙島屋商事',
  '佐々木建設',
  'サンライズ・コンピューター',
  'ヴィレッジ企画',
  'Maruka Butsuryu',
  '東京 海上 倉庫',
  '渡邊興業',
  'キャピタル　ホールディングス',
];
const before = ['', '株式会社', '㈱', '(株) ', '有限会社', '一般社団法人 ', 'ｶ)'];
const after = ['', '株式会社', '（株）', ' Co., Ltd.', ' 東京支店', '株式会社 大阪営業所', ''];
const names: string[] = [];
for (let i = 0; i < 10_000; i++)
  names.push(
    `${before[i % before.length]}${cores[(i * 7) % cores.length]}${i % 13}${after[(i * 3) % after.length]}`,
  );
const readings = names.map((n) => `カブシキガイシャ ${n.length % 2 ? 'マルカブツリュウ' : 'ﾄｳｷｮｳｶｲｼﾞｮｳｿｳｺ'}`);

function rate(label: string, inputs: string[], fn: (x: string) => unknown, rounds = 5): void {
  for (const x of inputs.slice(0, 2000)) fn(x); // warm-up (and table load)
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (const x of inputs) fn(x);
    best = Math.min(best, performance.now() - start);
  }
  console.log(
    `${label.padEnd(12)} ${Math.round((inputs.length / best) * 1000).toLocaleString('en')} names/s (best of ${rounds} x ${inputs.length})`,
  );
}

const t0 = performance.now();
nameKey('株式会社');
console.log(`tables loaded in ${(performance.now() - t0).toFixed(1)} ms`);
rate('nameKey', names, nameKey);
rate('readingKey', readings, readingKey);
rate('romajiKey', readings, romajiKey);
rate('queryKeys', names, queryKeys);

if (process.argv.includes('--reading')) {
  const t1 = performance.now();
  const analyser = await loadReadingAnalyser();
  console.log(`reading analyser loaded in ${Math.round(performance.now() - t1)} ms`);
  rate('reading', names.slice(0, 3000), (n) => analyser.reading(n), 3);
}
