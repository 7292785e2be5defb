/** workLocationCount's address normalisation and counted kinds (docs/api.md, "Records"), table-driven. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workLocationKinds } from '../../indexer/labels.js';
import type { WorkLocationSource } from '../../indexer/source-types.js';
import {
  countedWorkLocationKinds,
  countWorkLocations,
  normalizeStreet,
  workLocationKey,
} from '../../indexer/work-location.js';
import { projectRoot } from '../../src/project-root.js';

describe('normalizeStreet', () => {
  it.each([
    ['道玄坂１丁目２番地３号', '道玄坂1-2-3'],
    ['道玄坂 1-2-3', '道玄坂1-2-3'],
    ['道玄坂一丁目2番3号', '道玄坂1-2-3'],
    ['道玄坂1ー2ー3', '道玄坂1-2-3'],
    ['道玄坂1−2−3', '道玄坂1-2-3'],
    ['道玄坂１－２－３', '道玄坂1-2-3'],
    ['道玄坂1丁目2-3', '道玄坂1-2-3'],
    ['西新宿二十三丁目8番地の1', '西新宿23-8-1'],
    ['栄町5-18-11　新スクエア10F', '栄町5-18-11新スクエア10f'],
    ['大手町1丁目', '大手町1'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeStreet(input)).toBe(expected);
  });
});

describe('workLocationKey', () => {
  const onsite = (cityName: string | null, address: string | null): WorkLocationSource => ({
    kind: 'onsite',
    prefectureId: 13,
    cityName,
    address,
  });

  it('reads a city written into the street part', () => {
    expect(workLocationKey(onsite(null, '渋谷区道玄坂1-2-3'))).toBe('13|渋谷区|道玄坂1-2-3');
    expect(workLocationKey(onsite('渋谷区', '渋谷区道玄坂1丁目2番3号'))).toBe('13|渋谷区|道玄坂1-2-3');
  });

  it.each<[string, WorkLocationSource | null]>([
    ['remote', { kind: 'remote' }],
    ['client site', { kind: 'client_site', prefectureId: 13, cityName: '港区', address: '芝公園4-2-8' }],
    ['one-off', { kind: 'one_off', prefectureId: 13, cityName: '港区', address: '芝公園4-2-8' }],
    ['no street', onsite('港区', null)],
    ['no city', onsite(null, '4-2-8')],
    ['blank', onsite(' ', '　')],
    ['none', null],
  ])('does not count %s', (_label, location) => {
    expect(workLocationKey(location)).toBeNull();
  });

  it('counts one place per normalised address and 0 when none', () => {
    expect(
      countWorkLocations([
        onsite('渋谷区', '道玄坂１丁目２番地３号'),
        onsite('渋谷区', '道玄坂 1-2-3'),
        onsite('渋谷区', '道玄坂1-2-4'),
        { kind: 'unknown', prefectureId: 13, cityName: '渋谷区', address: '道玄坂1丁目2番3号' },
        { kind: 'remote' },
      ]),
    ).toBe(2);
    expect(countWorkLocations([{ kind: 'remote' }, null])).toBe(0);
  });
});

describe('the kinds counted, as the contract states them', () => {
  const at = (kind: WorkLocationSource['kind'], address: string): WorkLocationSource => ({
    kind,
    prefectureId: 13,
    cityName: '渋谷区',
    address,
  });

  it('a posting of unknown kind with a city and a street is a place; client-site and one-off are not', () => {
    expect(
      countWorkLocations([
        at('onsite', '道玄坂1-2-3'),
        at('unknown', '神南1-1-1'),
        at('client_site', '宇田川町2-2-2'),
        at('one_off', '桜丘町3-3-3'),
      ]),
    ).toBe(2);
    expect(workLocationKey(at('unknown', '神南1丁目1番1号'))).toBe('13|渋谷区|神南1-1-1');
  });

  it('docs/api.md names each counted kind as counted and each other kind as not', () => {
    const api = readFileSync(path.join(projectRoot, 'docs', 'api.md'), 'utf8');
    const bullet = /^- `workLocationCount` counts [\s\S]*?(?=\n- |\n\n)/m.exec(api)?.[0] ?? '';
    // the counted kinds before the semicolon, the others after it
    const [counted = '', notCounted = ''] = bullet.split(';');
    for (const kind of workLocationKinds) {
      const side = countedWorkLocationKinds.has(kind) ? counted : notCounted;
      expect(side, `docs/api.md, workLocationCount: ${kind}`).toContain(`(\`${kind}\``);
    }
  });
});
