/**
 * The strict JSON scanner (src/http/strict-json.ts) on its own: ordinary JSON passes, whatever
 * its shape; invalid UTF-8, lone surrogates and duplicate keys are each found and named by
 * the field they are in, as the API names fields.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonTextProblems } from '../../src/http/strict-json.js';
import { propertyParams } from '../support/fast-check.js';

const scan = (text: string | Buffer) =>
  findJsonTextProblems(typeof text === 'string' ? Buffer.from(text) : text);
const fields = (text: string | Buffer) => scan(text).map(({ kind, field }) => `${kind} ${field}`);
/** Bytes: text pieces as UTF-8 and numbers as raw bytes. */
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('ordinary JSON passes', () => {
  it.each([
    ['an empty object', '{}'],
    ['an empty array', '[]'],
    ['scalars at the top', '1'],
    ['a string at the top', '"text"'],
    ['null', 'null'],
    [
      'a search body',
      '{"filters":{"corporateName":{"anyContains":["株式会社","ｶﾌﾞｼｷ"]}},"limit":20,"sort":{"field":"name","order":"asc"}}',
    ],
    ['escaped quotes and backslashes', '{"a":"say \\"hi\\"","b":"C:\\\\dir\\\\","c\\"d":"\\\\"}'],
    ['every short escape', '{"a":"\\b\\f\\n\\r\\t\\/\\\\\\""}'],
    ['nested objects and arrays', '{"a":[{"b":[[1,2],[3]],"c":{"d":{"e":[]}}},{"b":1}],"f":[[],[{}]]}'],
    ['a valid surrogate pair', '{"emoji":"\\ud83d\\ude00","upper":"\\uD83D\\uDE00"}'],
    ['BMP escapes', '{"a":"\\u0041\\u3042\\uffff\\u0000"}'],
    ['the same key in sibling objects', '{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}'],
    ['keys that differ only in case', '{"limit":1,"Limit":2}'],
    ['a key equal to a value', '{"a":"a","b":"a"}'],
    ['whitespace everywhere', ' \n{ "a" : [ 1 , 2 ] ,\t"b" : { } }\r\n'],
    ['an emoji and 4-byte UTF-8', '{"a":"😀𠮷"}'],
  ])('%s', (_name, text) => {
    expect(scan(text)).toEqual([]);
  });

  it('a byte order mark in front', () => {
    expect(scan(bytes([0xef, 0xbb, 0xbf], '{"a":1}'))).toEqual([]);
  });

  it('any JSON that JSON.stringify writes from well-formed strings', () => {
    const wellFormed = fc.string({ unit: 'grapheme' });
    const value = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
      leaf: fc.oneof(
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        wellFormed,
      ),
      array: fc.array(tie('tree'), { maxLength: 5 }),
      object: fc.dictionary(wellFormed, tie('tree'), { maxKeys: 5 }),
    })).tree;
    fc.assert(
      fc.property(value, (v) => {
        expect(scan(JSON.stringify(v))).toEqual([]);
      }),
      propertyParams(300),
    );
  });
});

describe('invalid UTF-8', () => {
  it('in a string value: names the field', () => {
    expect(scan(bytes('{"filters":{"corporateName":{"anyContains":["ok","', [0xff, 0xfe], '"]}}}'))).toEqual([
      {
        kind: 'invalid_utf8',
        field: 'filters.corporateName.anyContains[1]',
        reason: 'is not valid UTF-8: send the body as UTF-8 text',
      },
    ]);
  });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['a truncated 3-byte sequence', [0xe3, 0x81]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a surrogate written in UTF-8 (CESU-8)', [0xed, 0xa0, 0x80]],
    ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('%s', (_name, raw) => {
    expect(fields(bytes('{"name":"a', raw, 'b"}'))).toEqual(['invalid_utf8 name']);
  });

  it('in a key: names the object holding it', () => {
    expect(fields(bytes('{"sort":{"fi', [0xff], 'ld":"name"}}'))).toEqual(['invalid_utf8 sort']);
    expect(fields(bytes('{"', [0xff], '":1}'))).toEqual(['invalid_utf8 body']);
  });

  it('a string that is the whole body: body', () => {
    expect(fields(bytes('"', [0xff], '"'))).toEqual(['invalid_utf8 body']);
  });

  it('valid UTF-8 in other strings is not reported', () => {
    expect(fields(bytes('{"a":"株式会社","b":"', [0xff], '","c":"😀"}'))).toEqual(['invalid_utf8 b']);
  });
});

describe('lone surrogates', () => {
  it('a high surrogate alone: names the field as the API does', () => {
    expect(scan('{"filters":{"corporateName":{"anyContains":["\\ud800"]}}}')).toEqual([
      {
        kind: 'lone_surrogate',
        field: 'filters.corporateName.anyContains[0]',
        reason: expect.stringContaining('lone surrogate'),
      },
    ]);
  });

  it.each([
    ['a low surrogate alone', '"\\udc00"'],
    ['a high surrogate at the end', '"abc\\uD83D"'],
    ['a high surrogate before a letter', '"\\ud83dx"'],
    ['a high surrogate before another high one', '"\\ud83d\\ud83d"'],
    ['a pair the wrong way round', '"\\ude00\\ud83d"'],
    ['a high surrogate before a short escape', '"\\ud83d\\n"'],
  ])('%s', (_name, value) => {
    expect(fields(`{"q":[1,{"name":${value}}]}`)).toEqual(['lone_surrogate q[1].name']);
  });

  it('an escaped backslash before u is no escape', () => {
    expect(scan('{"a":"\\\\ud800"}')).toEqual([]);
  });

  it('in a key: names the object holding it', () => {
    expect(fields('{"sort":{"\\ud800":1}}')).toEqual(['lone_surrogate sort']);
  });
});

describe('duplicate keys', () => {
  it('at the top: names the key', () => {
    expect(scan('{"limit":1,"limit":500}')).toEqual([
      { kind: 'duplicate_key', field: 'limit', reason: 'is given more than once: send each field once' },
    ]);
  });

  it('nested, in an array element: names the path', () => {
    expect(
      fields('{"filterGroups":[{"a":1},{"prefectureId":{"any":[1]},"prefectureId":{"any":[2]}}]}'),
    ).toEqual(['duplicate_key filterGroups[1].prefectureId']);
  });

  it('written with an escape: the same key as JSON.parse sees it', () => {
    expect(fields('{"limit":1,"\\u006cimit":2}')).toEqual(['duplicate_key limit']);
  });

  it('an escaped key first, then the plain one', () => {
    expect(fields('{"\\u006cimit":1,"limit":2}')).toEqual(['duplicate_key limit']);
    expect(fields('{"a\\"b":1,"a\\u0022b":2}')).toEqual(['duplicate_key a"b']);
  });

  it('in an object of many keys (kept in a set past 16)', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(scan(`{${keys.join(',')}}`)).toEqual([]);
    expect(fields(`{${keys.join(',')},"k7":1}`)).toEqual(['duplicate_key k7']);
    expect(fields(`{${keys.join(',')},"k\\u0037":1}`)).toEqual(['duplicate_key k7']);
  });

  it('keys of the same length that differ in a late byte are not duplicates', () => {
    expect(scan('{"株式会社A":1,"株式会社B":2,"abcd":1,"abce":2}')).toEqual([]);
    expect(fields('{"株式会社A":1,"株式会社A":2}')).toEqual(['duplicate_key 株式会社A']);
  });

  it('three times: reported twice; many objects: each', () => {
    expect(fields('{"a":1,"a":2,"a":3,"b":{"c":1,"c":2}}')).toEqual([
      'duplicate_key a',
      'duplicate_key a',
      'duplicate_key b.c',
    ]);
  });

  it('stops at the limit', () => {
    const many = `{${Array.from({ length: 100 }, () => '"a":1').join(',')}}`;
    expect(scan(many)).toHaveLength(20);
  });
});

describe('never throws on bytes that are not JSON', () => {
  it('arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (raw) => {
        expect(() => findJsonTextProblems(Buffer.from(raw))).not.toThrow();
      }),
      propertyParams(300),
    );
  });

  it.each(['{"a":"\\u12', '{"a', '"\\', '}}]]', '{"a":"\\ud800\\u'])('%s', (text) => {
    expect(() => scan(text)).not.toThrow();
  });
});
