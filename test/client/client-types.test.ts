/**
 * The typed client's build and types: the generated types are what `npm run gen:client`
 * writes from the committed openapi.yaml now; the package compiles to JavaScript with
 * declarations; and a misspelt filter name (and the other mistakes in client/test/types.ts) is
 * a compile error, shown by compiling that file with its `@ts-expect-error` lines removed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { clientTypesFile, renderClientTypes } from '../../scripts/gen-client.js';
import { projectRoot } from '../../src/project-root.js';

const clientDir = path.join(projectRoot, 'client');
const typeTests = path.join(clientDir, 'test', 'types.ts');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Type errors of a program of these files, compiled with the client's own settings. */
function typeErrors(files: string[]): ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(clientDir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  if (!config) throw new Error('client/tsconfig.json did not parse');
  const program = ts.createProgram(files, { ...config.options, noEmit: true, rootDir: clientDir });
  return [...ts.getPreEmitDiagnostics(program)];
}

describe('typed client', () => {
  it('has generated types that match openapi.yaml (run `npm run gen:client` when this fails)', async () => {
    expect(readFileSync(clientTypesFile, 'utf8')).toBe(await renderClientTypes());
  });

  it('builds: JavaScript and declarations', () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'client-build-'));
    scratch.push(outDir);
    execFileSync(
      path.join(projectRoot, 'node_modules', '.bin', 'tsc'),
      ['-p', clientDir, '--outDir', outDir],
      {
        stdio: 'pipe',
      },
    );
    for (const file of ['index.js', 'index.d.ts', 'generated/openapi.js', 'generated/openapi.d.ts'])
      expect(existsSync(path.join(outDir, file)), file).toBe(true);
  });

  it('compiles the type tests, and each `@ts-expect-error` there marks a real error', () => {
    expect(typeErrors([typeTests]).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual(
      [],
    );

    // the same file without the directives: every marked line must fail, the misspelt name by name
    const source = readFileSync(typeTests, 'utf8');
    const bare = source.replaceAll('// @ts-expect-error', '//');
    const copy = path.join(clientDir, 'test', `.types-bare-${process.pid}.ts`);
    writeFileSync(copy, bare);
    try {
      const errors = typeErrors([copy]);
      const lines = source.split('\n');
      const expected = lines.flatMap((line, index) =>
        line.trim() === '// @ts-expect-error' ? [index + 1] : [],
      );
      const failing = [
        ...new Set(
          errors.map((d) =>
            d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1,
          ),
        ),
      ];
      // an error is reported on the line after the directive
      expect(failing.sort((a, b) => a - b)).toEqual(expected);
      const misspelt = errors.find((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, '\n').includes('prefectureID'),
      );
      expect(misspelt && ts.flattenDiagnosticMessageText(misspelt.messageText, '\n')).toMatch(
        /'prefectureID' does not exist in type/,
      );
    } finally {
      rmSync(copy, { force: true });
    }
  });
});
