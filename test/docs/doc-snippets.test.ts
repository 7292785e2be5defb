/**
 * Every ```ts block of README.md, docs/guide.md, docs/client.md and client/README.md compiles
 * against the client as it is now (client/src, through the package name `@corpsearch/client`), with the
 * client's own compiler settings and Node's types: an example a reader copies never meets a
 * renamed method, a field that moved or a missing import. Each block is its own module
 * (`.mts`: top-level await allowed); a failure names the document and the line in it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project-root.js';

const documents = ['README.md', 'docs/guide.md', 'docs/client.md', 'client/README.md'];
const clientDir = path.join(projectRoot, 'client');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'doc-snippets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Snippet {
  document: string;
  /** 1-based line of the block's first code line in the document. */
  line: number;
  code: string;
}

/** The ```ts (or ```typescript) blocks of a Markdown text, with where each starts. */
function tsBlocks(document: string, markdown: string): Snippet[] {
  const blocks: Snippet[] = [];
  for (const match of markdown.matchAll(/^```(?:ts|typescript)[ \t]*\n([\s\S]*?)^```/gm)) {
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    blocks.push({ document, line, code: match[1] as string });
  }
  return blocks;
}

/** The client's compiler options, plus Node's types and the package name mapped to its source. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(clientDir, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error('client/tsconfig.json did not parse');
  return {
    ...config.options,
    noEmit: true,
    rootDir: undefined,
    outDir: undefined,
    declaration: false,
    types: ['node'],
    typeRoots: [path.join(projectRoot, 'node_modules', '@types')],
    paths: { '@corpsearch/client': [path.join(clientDir, 'src', 'index.ts')] },
  };
}

/** Type errors of the snippets, each as `document:line: message`. */
function snippetErrors(snippets: Snippet[]): string[] {
  const files = snippets.map((snippet, index) => {
    const file = path.join(scratch, `snippet-${index}.mts`);
    // `export {}` makes a block without imports a module too, so its names stay its own
    writeFileSync(file, `${snippet.code}\nexport {};\n`);
    return { file, snippet };
  });
  const program = ts.createProgram(
    files.map(({ file }) => file),
    compilerOptions(),
  );
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const origin = files.find(
      ({ file }) => diagnostic.file && path.resolve(diagnostic.file.fileName) === file,
    );
    if (!origin || !diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${origin.snippet.document}:${origin.snippet.line + line}: ${message}`;
  });
}

const snippets = documents.flatMap((document) =>
  tsBlocks(document, readFileSync(path.join(projectRoot, document), 'utf8')),
);

describe('TypeScript examples in the documentation', () => {
  it('finds the blocks of the client guide and the package README', () => {
    expect([...new Set(snippets.map((snippet) => snippet.document))]).toEqual(
      expect.arrayContaining(['docs/client.md', 'client/README.md']),
    );
  });

  it('compiles every block against the client', () => {
    expect(snippetErrors(snippets)).toEqual([]);
  }, 120_000);

  it('names the document and line of a block that does not compile', () => {
    const broken: Snippet = {
      document: 'broken.md',
      line: 10,
      code: "import { createCorpsearchClient } from '@corpsearch/client';\n\nconst api = createCorpsearchClient({ baseUrl: 'x', apiKey: 'y' });\nawait api.searchCompanies({});\n",
    };
    expect(snippetErrors([broken])).toEqual([
      expect.stringMatching(/^broken\.md:13: Property 'searchCompanies' does not exist/),
    ]);
  }, 120_000);
});
