/**
 * The record copy as JSON text, and response records cut from it without parsing it
 * (docs/decisions/record-copies.md; the copy's layout:
 * docs/index-documents.md). The copy is the record's JSON text as `JSON.stringify` writes it
 * (stored base64 in a binary field, ./records.ts), with the fields a search reads elsewhere
 * left out (`live`: doc values, the highlighter) and one member more at its end naming its
 * layout:
 *
 *   '{"corporateNumber":"1010001000001","name":"株式会社A",...,"englishName":null,"_layout":"3f2a9c01d4e7"}'
 *
 * A record is then spliced: runs of the copy's members taken verbatim, the live fields' values
 * written between them. A member's place is found by its key, `,"name":`: JSON text escapes
 * every `"` inside a string, so that sequence is only ever a key, and no object inside the
 * record has a key that comes later at the top level (checked when a layout is defined). A copy
 * of another layout (written before a field was added) is not spliced; its caller parses it.
 */
import { createHash } from 'node:crypto';

/**
 * Byte text: UTF-8 bytes held in a string one byte per character (what a Buffer's `latin1`
 * decoding gives). A search answer is built in it (src/search/run-search.ts `shapeAnswer`):
 * a copy becomes byte text by a copy of its bytes, not by decoding UTF-8, and the answer goes
 * back to bytes the same way, where text would be decoded once and encoded again. JSON's
 * structural characters and the keys a splice looks for are ASCII, the same in both, so the
 * splice below works on either; the values it writes between runs are text and are turned into
 * byte text (`asByteText`). Byte text never leaves the answer's building: `answerBytes` ends it.
 */
export type ByteText = string & { readonly __byteText: true };

/** Any UTF-16 unit past ASCII (surrogates included). */
const nonAscii = /[\u0080-\uffff]/;

/** Text as byte text: ASCII is both; anything else by its UTF-8 bytes. */
export function asByteText(text: string): ByteText {
  return (nonAscii.test(text) ? Buffer.from(text, 'utf8').toString('latin1') : text) as ByteText;
}

/** Bytes as byte text. */
export function byteTextOf(bytes: Buffer): ByteText {
  return bytes.toString('latin1') as ByteText;
}

/** Byte text back as text (a checked field's stored value). */
export function textOfBytes(text: ByteText): string {
  return nonAscii.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}

/** The bytes byte text holds. */
export function answerBytes(text: ByteText): Buffer {
  return Buffer.from(text, 'latin1');
}

type Doc = Record<string, unknown>;
export type HitFields = Record<string, unknown[] | undefined>;
export interface CopyHit {
  fields?: HitFields;
  highlight?: Record<string, string[]>;
}

/**
 * Raise when the text written for the same fields changes (the normalisation of
 * ./records.ts: list key order, `closed`, ...): copies written before are then parsed again.
 */
const copyFormat = 1;
const layoutKey = '_layout';

export interface CopyLayout {
  /** The record's fields, in the response's order. */
  fields: readonly string[];
  /** Fields not in the copy: their value's JSON text, from the hit. */
  live: Record<string, (hit: CopyHit) => string>;
  /** Fields in the copy whose value the hit may override: stored JSON text -> JSON text. */
  checked: Record<string, (stored: string, hit: CopyHit) => string>;
  /** The copy's members, in order. */
  stored: string[];
  /** Names the layout in each copy: a hash of the fields and `copyFormat`. */
  id: string;
  /** What every copy of this layout starts and ends with. */
  head: string;
  suffix: string;
  /** `,"field":` for each stored field. */
  markers: Map<string, string>;
  nextStored: Map<string, string | undefined>;
}

/**
 * `nested`: the keys of the objects a record field holds (`markets` -> code, name, ...);
 * throws when such a key is a top-level field after it (its key would be found first).
 * `since`: fields added after copies of the layout were written that leave the stored text as
 * it was: a checked field (its member is stored as before) or a live one (never stored). The
 * layout keeps its name without them, so copies already written are still spliced, with no
 * backfill.
 */
export function defineLayout(
  fields: readonly string[],
  live: CopyLayout['live'],
  checked: CopyLayout['checked'],
  nested: Record<string, readonly string[]>,
  since: readonly string[] = [],
): CopyLayout {
  const stored = fields.filter((field) => !(field in live));
  // the keys are looked for in byte text as they are written (see ByteText)
  const notAscii = fields.find((field) => nonAscii.test(field));
  if (notAscii !== undefined) throw new Error(`record copy: field ${notAscii} is not ASCII`);
  assertUnambiguous(stored, nested);
  if (stored.includes(layoutKey)) throw new Error(`a record field is named ${layoutKey}`);
  for (const field of since)
    if (!(field in live) && !(field in checked)) throw new Error(`${field} is stored: it changes the copy`);
  // a live field joins the name through the field list and the live list, a checked one through the checked list
  const liveSince = since.filter((field) => field in live);
  const named = (list: readonly string[], left: readonly string[]) =>
    list.filter((field) => !left.includes(field));
  const id = createHash('sha256')
    .update(
      JSON.stringify([
        copyFormat,
        named(fields, liveSince),
        named(Object.keys(live), liveSince),
        named(Object.keys(checked), since),
      ]),
    )
    .digest('hex')
    .slice(0, 12);
  return {
    fields,
    live,
    checked,
    stored,
    id,
    head: `{${JSON.stringify(stored[0])}:`,
    suffix: `,${JSON.stringify(layoutKey)}:${JSON.stringify(id)}}`,
    markers: new Map(stored.map((field) => [field, `,${JSON.stringify(field)}:`])),
    nextStored: new Map(stored.map((field, i) => [field, stored[i + 1]])),
  };
}

function assertUnambiguous(stored: string[], nested: Record<string, readonly string[]>): void {
  for (const [field, keys] of Object.entries(nested)) {
    const later = stored.slice(stored.indexOf(field) + 1);
    const clash = keys.find((key) => later.includes(key));
    if (clash) throw new Error(`record copy: ${field}.${clash} would be taken for the top-level ${clash}`);
  }
}

/** The copy of a record (every field of the layout's `stored`, as the record holds it). */
export function writeCopy(layout: CopyLayout, record: Doc): string {
  const copy: Doc = {};
  for (const field of layout.stored) copy[field] = record[field] ?? null;
  copy[layoutKey] = layout.id;
  return JSON.stringify(copy);
}

/** True when `copy` is JSON text of this layout (not base64, not another layout). */
export function isLayoutCopy(layout: CopyLayout, copy: string): boolean {
  return copy.startsWith(layout.head) && copy.endsWith(layout.suffix);
}

type Step =
  /** stored fields from `from` up to (not including) `to`; `to` undefined: to the end */
  | { kind: 'run'; from: string; to: string | undefined }
  | { kind: 'live'; field: string; key: string }
  | { kind: 'checked'; field: string; key: string; to: string | undefined };

/** How to cut the records of one search: computed once per search, from `fields`. */
export type SpliceSteps = readonly Step[];

export function spliceSteps(layout: CopyLayout, fields: readonly string[] | undefined): SpliceSteps {
  const wanted = fields ? new Set(fields) : undefined;
  const steps: Step[] = [];
  let run: { from: string; last: string } | undefined;
  const close = () => {
    if (run) steps.push({ kind: 'run', from: run.from, to: layout.nextStored.get(run.last) });
    run = undefined;
  };
  for (const field of layout.fields) {
    const take = !wanted || wanted.has(field);
    const key = `${JSON.stringify(field)}:`;
    if (field in layout.live) {
      if (!take) continue;
      close();
      steps.push({ kind: 'live', field, key });
    } else if (!take || field in layout.checked) {
      close();
      if (take) steps.push({ kind: 'checked', field, key, to: layout.nextStored.get(field) });
    } else if (run) run.last = field;
    else run = { from: field, last: field };
  }
  close();
  return steps;
}

/**
 * The record's JSON text, as byte text, from a copy of `layout` held as byte text, or
 * undefined when `copy` is not one (the caller then builds the record as an object).
 */
export function spliceRecord(
  layout: CopyLayout,
  steps: SpliceSteps,
  copy: ByteText,
  hit: CopyHit,
): ByteText | undefined {
  if (!isLayoutCopy(layout, copy)) return undefined;
  const end = copy.length - layout.suffix.length;
  let cursor = 0;
  // the offset of a stored field's key (its opening quote); -1 when not found
  const keyAt = (field: string): number => {
    if (field === layout.stored[0]) return 1;
    const at = copy.indexOf(layout.markers.get(field) as string, cursor);
    if (at < 0) return -1;
    cursor = at;
    return at + 1;
  };
  // where the member before `to` ends: at the comma before `to`'s key, or at the suffix
  const endBefore = (to: string | undefined): number => (to === undefined ? end : keyAt(to) - 1);
  const parts: string[] = [];
  for (const step of steps) {
    if (step.kind === 'live') {
      parts.push(step.key + asByteText((layout.live[step.field] as (hit: CopyHit) => string)(hit)));
      continue;
    }
    const start = keyAt(step.kind === 'run' ? step.from : step.field);
    const stop = endBefore(step.to);
    if (start < 0 || stop < start) return undefined;
    if (step.kind === 'run') parts.push(copy.slice(start, stop));
    else {
      const stored = textOfBytes(copy.slice(start + step.key.length, stop) as ByteText);
      const checked = (layout.checked[step.field] as CopyLayout['checked'][string])(stored, hit);
      parts.push(step.key + asByteText(checked));
    }
  }
  return `{${parts.join(',')}}` as ByteText;
}
