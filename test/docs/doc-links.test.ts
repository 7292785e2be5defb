/**
 * Every relative link and anchor in README.md and docs/**\/*.md resolves (scripts/check-doc-links.ts,
 * `npm run check:links`): a moved document, a renamed decision record or a reworded heading turns
 * this red. The living decision records stay at most 40 (docs/decisions/documentation.md). The
 * checker itself is held to broken links written on purpose into a folder of its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  anchorsOf,
  brokenDocPaths,
  brokenLinks,
  documentsOf,
  headingAnchor,
} from '../../scripts/check-doc-links.js';
import { projectRoot } from '../../src/project-root.js';

describe('the repository documents', () => {
  it('include README.md, the docs and the decision records, at most 40 living ones', () => {
    const files = documentsOf(projectRoot);
    expect(files[0]).toBe('README.md');
    expect(files).toEqual(
      expect.arrayContaining(['docs/api.md', 'docs/decisions/README.md', 'docs/decisions/archive.md']),
    );
    const living = files.filter(
      (file) => /^docs\/decisions\/[^/]+\.md$/.test(file) && !/\/(README|archive)\.md$/.test(file),
    );
    expect(living.length).toBeGreaterThan(20);
    expect(living.length).toBeLessThanOrEqual(40);
  });

  it('have no broken relative link or anchor', () => {
    expect(brokenLinks(projectRoot)).toEqual([]);
  });

  it('are cited by the code only under paths that exist', () => {
    expect(brokenDocPaths(projectRoot)).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'doc-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write(
    'README.md',
    [
      '# Title',
      'See [the guide](docs/guide.md#first-steps), [gone](gone.md) and [here](#title).',
      'A [bad anchor](docs/guide.md#no-such-heading) and [one here](#nowhere).',
      '```sh',
      'echo "[not a link](missing.md)"',
      '```',
      'Code `[not a link](missing.md)`, [a site](https://example.org/x.md) and [a path](/docs/errors).',
    ].join('\n'),
  );
  write(
    'docs/guide.md',
    '# Guide\n\n## First steps\n\n## First steps\n\n[back](../README.md#title) [twin](#first-steps-1)\n',
  );

  it('reports a missing file and a missing anchor with file and line, and nothing else', () => {
    expect(brokenLinks(dir, documentsOf(dir))).toEqual([
      { file: 'README.md', line: 2, target: 'gone.md', reason: 'no such file: gone.md' },
      {
        file: 'README.md',
        line: 3,
        target: 'docs/guide.md#no-such-heading',
        reason: 'no heading with the anchor #no-such-heading in docs/guide.md',
      },
      {
        file: 'README.md',
        line: 3,
        target: '#nowhere',
        reason: 'no heading with the anchor #nowhere in README.md',
      },
    ]);
  });

  it('names headings as the rendered page does', () => {
    expect(headingAnchor('Lists of any size: paging, cursors, counts, facets, export')).toBe(
      'lists-of-any-size-paging-cursors-counts-facets-export',
    );
    expect(headingAnchor('`npm install`, not `npm ci`')).toBe('npm-install-not-npm-ci');
    expect(headingAnchor('Registry: the assignment date (法人番号指定日)')).toBe(
      'registry-the-assignment-date-法人番号指定日',
    );
    expect([...anchorsOf('# A\n## A\n<a id="row-x"></a>\n```\n# not a heading\n```\n')]).toEqual([
      'a',
      'a-1',
      'row-x',
    ]);
  });

  it('reports a document path cited in code that does not exist', () => {
    // built, so that this file itself cites no missing document
    const missing = ['docs', 'decisions', '0999-gone.md'].join('/');
    write('src/cites.ts', `/** the rule (${missing}) and the reference (docs/guide.md) */\n`);
    expect(brokenDocPaths(dir, ['src'])).toEqual([
      { file: 'src/cites.ts', line: 1, target: missing, reason: `no such file: ${missing}` },
    ]);
  });
});
