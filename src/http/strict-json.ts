/**
 * What JSON.parse lets through silently, found in the raw bytes of a body it has accepted:
 *
 *   invalid UTF-8      {"name":"<ff>"}            decoded to U+FFFD without a word
 *   a lone surrogate   {"name":"\ud800"}          a string that is no Unicode text
 *   a duplicate key    {"limit":1,"limit":500}    the last one wins without a word
 *
 * Each is reported with the field it is in, named as the API names fields elsewhere
 * (`filters.corporateName.anyContains[0]`, src/errors/field-errors.ts); a string that is the
 * whole body is `body`, and so is invalid UTF-8 that no string holds.
 *
 * One pass over the bytes, after JSON.parse has said the body is JSON (so the grammar needs
 * no checking here: the pass only tracks strings, keys, and the nesting that names a field).
 * UTF-8 is checked once for the whole body by the native `isUtf8`, string by string only when
 * that fails; keys are compared as byte ranges, and made into strings only when one has an
 * escape, an object has many keys, or a problem needs a name. It never throws, whatever the
 * bytes; on bytes that are not JSON its findings mean nothing, which is why it runs after the
 * parse. Cost: docs/decisions/http-server-and-bodies.md.
 */
import { isUtf8 } from 'node:buffer';

export type JsonTextProblemKind = 'invalid_utf8' | 'lone_surrogate' | 'duplicate_key';

export interface JsonTextProblem {
  kind: JsonTextProblemKind;
  field: string;
  reason: string;
}

const reasons = {
  invalidUtf8: 'is not valid UTF-8: send the body as UTF-8 text',
  invalidUtf8Key: 'has a field name that is not valid UTF-8: send the body as UTF-8 text',
  loneSurrogate:
    'holds a lone surrogate (\\ud800-\\udfff without its pair), which is no character: write a character beyond U+FFFF as a pair such as \\ud83d\\ude00, or as UTF-8',
  loneSurrogateKey:
    'has a field name with a lone surrogate (\\ud800-\\udfff without its pair), which is no character',
  duplicateKey: 'is given more than once: send each field once',
} as const;

/** Keys an object may have before they are kept in a Set rather than compared pairwise. */
const pairwiseKeys = 16;

interface Frame {
  /** an object (keys) or an array (index) */
  object: boolean;
  /** the array's element being read */
  index: number;
  /** the object's latest key, as a byte range between its quotes; escaped: it has a backslash */
  keyStart: number;
  keyEnd: number;
  keyEscaped: boolean;
  /** the object's keys so far, as byte ranges [start, end, escaped (0/1)] */
  ranges: number[];
  /** the keys as strings, once an object has an escaped key or many keys */
  keys: Set<string> | undefined;
}

const quote = 0x22;
const backslash = 0x5c;

/** Four hex digits at `at` as a number; -1 if they are not. */
function hex4(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const b = bytes[i] ?? -1;
    const digit =
      b >= 0x30 && b <= 0x39
        ? b - 0x30
        : b >= 0x41 && b <= 0x46
          ? b - 0x37
          : b >= 0x61 && b <= 0x66
            ? b - 0x57
            : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** A key as JSON.parse makes it ("a" and "\u0061" are one key; a lone surrogate stays). */
function keyText(bytes: Buffer, start: number, end: number, escaped: boolean): string {
  const text = bytes.toString('utf8', start, end);
  if (!escaped) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/** `a.b[2].c` for the first `depth` frames (the caller's terms); `body` for none. */
function pathOf(bytes: Buffer, stack: Frame[], depth = stack.length): string {
  let field = '';
  for (let i = 0; i < depth; i++) {
    const frame = stack[i] as Frame;
    if (!frame.object) field += `[${frame.index}]`;
    else {
      const key = keyText(bytes, frame.keyStart, frame.keyEnd, frame.keyEscaped);
      field += field === '' ? key : `.${key}`;
    }
  }
  return field === '' ? 'body' : field;
}

function sameBytes(bytes: Buffer, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (bytes[aStart + i] !== bytes[bStart + i]) return false;
  return true;
}

/** Whether the object has had this key before; records it. */
function seenBefore(bytes: Buffer, frame: Frame, start: number, end: number, escaped: boolean): boolean {
  const { ranges } = frame;
  if (frame.keys === undefined && !escaped && ranges.length < 3 * pairwiseKeys) {
    for (let k = 0; k < ranges.length; k += 3)
      if (ranges[k + 2] === 0 && sameBytes(bytes, ranges[k] as number, ranges[k + 1] as number, start, end))
        return true;
    // an escaped key among them is compared as text (rare)
    let textual = false;
    for (let k = 2; k < ranges.length; k += 3) if (ranges[k] === 1) textual = true;
    if (!textual) {
      ranges.push(start, end, 0);
      return false;
    }
  }
  if (frame.keys === undefined) {
    frame.keys = new Set();
    for (let k = 0; k < ranges.length; k += 3)
      frame.keys.add(keyText(bytes, ranges[k] as number, ranges[k + 1] as number, ranges[k + 2] === 1));
  }
  const key = keyText(bytes, start, end, escaped);
  ranges.push(start, end, escaped ? 1 : 0);
  if (frame.keys.has(key)) return true;
  frame.keys.add(key);
  return false;
}

/**
 * The problems of a body JSON.parse accepted, in the order they occur, at most `limit`
 * (a body full of them gets a useful answer, not a megabyte of one).
 */
export function findJsonTextProblems(bytes: Buffer, limit = 20): JsonTextProblem[] {
  const problems: JsonTextProblem[] = [];
  const checkUtf8 = !isUtf8(bytes);
  const stack: Frame[] = [];
  const length = bytes.length;
  let expectKey = false;
  // a byte order mark (body-parser's decoder drops it before JSON.parse)
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < length && problems.length < limit) {
    const b = bytes[i] as number;
    if (b === quote) {
      const top = stack[stack.length - 1];
      const isKey = expectKey && top?.object === true;
      const start = i + 1;
      let escaped = false;
      let lone = false;
      let j = start;
      while (j < length) {
        const c = bytes[j] as number;
        if (c === quote) break;
        if (c !== backslash) {
          j++;
          continue;
        }
        escaped = true;
        if (bytes[j + 1] !== 0x75 /* u */) {
          j += 2;
          continue;
        }
        const unit = hex4(bytes, j + 2);
        j += 6;
        if (unit >= 0xd800 && unit <= 0xdbff) {
          // a high surrogate must be followed at once by a low one
          const low = bytes[j] === backslash && bytes[j + 1] === 0x75 ? hex4(bytes, j + 2) : -1;
          if (low >= 0xdc00 && low <= 0xdfff) j += 6;
          else lone = true;
        } else if (unit >= 0xdc00 && unit <= 0xdfff) lone = true;
      }
      const end = Math.min(j, length);
      i = end + 1;
      const badUtf8 = checkUtf8 && !isUtf8(bytes.subarray(start, end));
      if (isKey) {
        top.keyStart = start;
        top.keyEnd = end;
        top.keyEscaped = escaped;
        if (badUtf8 || lone) {
          // a name that is no text is not also compared with the others
          problems.push({
            kind: badUtf8 ? 'invalid_utf8' : 'lone_surrogate',
            field: pathOf(bytes, stack, stack.length - 1),
            reason: badUtf8 ? reasons.invalidUtf8Key : reasons.loneSurrogateKey,
          });
        } else if (seenBefore(bytes, top, start, end, escaped)) {
          problems.push({ kind: 'duplicate_key', field: pathOf(bytes, stack), reason: reasons.duplicateKey });
        }
      } else if (badUtf8) {
        problems.push({ kind: 'invalid_utf8', field: pathOf(bytes, stack), reason: reasons.invalidUtf8 });
      } else if (lone) {
        problems.push({ kind: 'lone_surrogate', field: pathOf(bytes, stack), reason: reasons.loneSurrogate });
      }
      continue;
    }
    switch (b) {
      case 0x7b /* { */:
      case 0x5b /* [ */:
        stack.push({
          object: b === 0x7b,
          index: 0,
          keyStart: 0,
          keyEnd: 0,
          keyEscaped: false,
          ranges: [],
          keys: undefined,
        });
        expectKey = b === 0x7b;
        break;
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop();
        expectKey = false;
        break;
      case 0x2c /* , */:
        {
          const top = stack[stack.length - 1];
          if (top?.object) expectKey = true;
          else if (top) top.index += 1;
          break;
        }
      case 0x3a /* : */:
        expectKey = false;
        break;
    }
    i++;
  }
  if (checkUtf8 && problems.length < limit && !problems.some((p) => p.kind === 'invalid_utf8'))
    problems.push({ kind: 'invalid_utf8', field: 'body', reason: reasons.invalidUtf8 });
  return problems;
}
