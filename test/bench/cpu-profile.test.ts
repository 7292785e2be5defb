/**
 * The profile summary of bench/api-step.ts (bench/cpu-profile.ts): self time summed by place
 * (a package, a project file, a Node internal, a native function, V8's own entries), idle
 * left out of the shares, the largest profile of a directory chosen. Pure: a small profile
 * written by the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { largestProfile, placeOf, summariseProfile } from '../../bench/cpu-profile.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'cpu-profile-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a CPU profile summed by place', () => {
  it('names each frame by its package, project file, Node module or native function', () => {
    expect(placeOf('file:///app/node_modules/ioredis/built/Redis.js', 'sendCommand')).toBe('ioredis');
    expect(placeOf('file:///app/node_modules/@opensearch-project/opensearch/lib/x.js', 'f')).toBe(
      '@opensearch-project/opensearch',
    );
    expect(placeOf('file:///app/src/search/records.ts', 'spliceRecord')).toBe('src/search/records.ts');
    expect(placeOf('node:internal/streams/writable', 'write')).toBe('node:internal/streams');
    expect(placeOf('node:buffer', 'slice')).toBe('node:buffer');
    expect(placeOf('', 'writev')).toBe('native writev');
    expect(placeOf('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it('sums self time per place; shares are of the busy time, idle apart', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: 'a', url: 'file:///app/node_modules/router/index.js' } },
        { id: 3, callFrame: { functionName: 'b', url: 'file:///app/node_modules/router/layer.js' } },
        { id: 4, callFrame: { functionName: 'writev', url: '' } },
      ],
      samples: [1, 2, 3, 4, 2, 1],
      timeDeltas: [5000, 1000, 2000, 1000, 4000, 7000],
    };
    const file = path.join(dir, 'CPU.small.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    writeFileSync(
      path.join(dir, 'CPU.tiny.cpuprofile'),
      JSON.stringify({ nodes: [], samples: [], timeDeltas: [] }),
    );
    expect(largestProfile(dir)).toBe(file);
    expect(summariseProfile(file)).toEqual({
      totalMs: 20,
      busyMs: 8,
      top: [
        { where: 'router', ms: 7, share: 0.875 },
        { where: 'native writev', ms: 1, share: 0.125 },
      ],
    });
  });
});
