/**
 * Readings derived from company names, for the companies that have no furigana (most of the
 * national registry): a morphological analyser (kuromoji, Apache-2.0, with the IPADIC
 * dictionary it ships, NAIST licence) splits the name into words and reads each from its
 * dictionary.
 *
 * A DERIVED reading is a guess, not the registered furigana: the dictionary picks one reading
 * per word (日本 -> ニホン, never ニッポン), and brand names and coined words have none. Whoever
 * stores one marks it as derived. Compare derived readings through readingKey / romajiKey.
 *
 *   (await loadReadingAnalyser()).reading('マルカ物流株式会社') === 'マルカブツリュウカブシキガイシャ'
 *   (await loadReadingAnalyser()).reading('Sony Group') === undefined   (Latin words have no reading)
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import kuromoji from 'kuromoji';
import { commonKanji, spellOutLegalForms } from './keys.js';

export interface ReadingAnalyser {
  /** The name's reading in katakana; undefined when a word in it has no reading. */
  reading(name: string): string | undefined;
}

const kanaWord = /^[\u3041-\u3096\u309d\u309e\u30a1-\u30fa\u30fc-\u30fe]+$/u;
const separatorsOnly = /^[\p{P}\p{S}\p{Z}\p{C}]+$/u;

/** ひらがな -> カタカナ, for words the dictionary does not know but are written in kana. */
function toKatakana(text: string): string {
  return text.replace(/[\u3041-\u3096\u309d\u309e]/gu, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
}

/** The IPADIC dictionary inside the kuromoji package. */
function packagedDictionary(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
}

/** A new analyser over the dictionary in `dicPath`; loadReadingAnalyser() shares one instead. */
export function buildReadingAnalyser(dicPath = packagedDictionary()): Promise<ReadingAnalyser> {
  return new Promise((resolve, reject) => {
    kuromoji.builder({ dicPath }).build((error, tokenizer) => {
      if (error) {
        reject(error);
        return;
      }
      resolve({
        reading(name) {
          let reading = '';
          for (const token of tokenizer.tokenize(commonKanji(spellOutLegalForms(name)))) {
            const word = token.surface_form;
            if (token.reading !== undefined && token.reading !== '*') reading += token.reading;
            else if (kanaWord.test(word)) reading += toKatakana(word);
            else if (!separatorsOnly.test(word)) return undefined;
          }
          return reading === '' ? undefined : reading;
        },
      });
    });
  });
}

let analyser: Promise<ReadingAnalyser> | undefined;

/**
 * The analyser, loaded once per process (the first call reads the 18 MB dictionary, about a
 * second; later calls share it). A failed load is not kept: the next call tries again.
 */
export function loadReadingAnalyser(): Promise<ReadingAnalyser> {
  analyser ??= buildReadingAnalyser().catch((error: unknown) => {
    analyser = undefined;
    throw error;
  });
  return analyser;
}
