/**
 * The test tiers (test/support/tiers.ts) against the files on disk: every file of the unit
 * tier exists and reaches for no server, and every other test file does (else it belongs in
 * the unit tier, which runs in a minute with no server). Run in the unit tier itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project-root.js';
import { needsServers, unitTestFiles } from './support/tiers.js';

const testFiles = readdirSync(path.join(projectRoot, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(path.sep).join('/')}`)
  .sort();
const serverLine = (file: string) =>
  readFileSync(path.join(projectRoot, file), 'utf8')
    .split('\n')
    .find((line) => needsServers.test(line));

describe('test tiers', () => {
  it('the unit tier lists existing test files, once each, in order', () => {
    expect(unitTestFiles.filter((file) => !testFiles.includes(file))).toEqual([]);
    expect(unitTestFiles).toEqual([...new Set(unitTestFiles)].sort());
  });

  it('no unit-tier file reaches for OpenSearch or Redis', () => {
    const reaching = unitTestFiles
      .map((file) => [file, serverLine(file)] as const)
      .filter(([, line]) => line !== undefined)
      .map(
        ([file, line]) => `${file} needs a server (${line?.trim()}): take it out of test/support/tiers.ts`,
      );
    expect(reaching).toEqual([]);
  });

  it('every integration-tier file needs a server (else it goes in the unit tier)', () => {
    const pure = testFiles
      .filter((file) => !unitTestFiles.includes(file) && serverLine(file) === undefined)
      .map((file) => `${file} needs no server: add it to the unit tier in test/support/tiers.ts`);
    expect(pure).toEqual([]);
  });
});
