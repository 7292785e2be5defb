/**
 * `npm run check:links`: every relative link and anchor in README.md, docs/**\/*.md and
 * sample-data/README.md must resolve. A link to a file that moved, a record renamed, or a
 * heading reworded (which changes its anchor) is reported as `file:line: target: reason`, and
 * the exit code is 1.
 *
 * Anchors follow the rule the repository's host renders headings with: lower case, everything
 * but letters, digits, `_`, `-` and spaces dropped, spaces turned into `-`, a repeated heading
 * taking `-1`, `-2`, ... An explicit `<a id="...">` or `<a name="...">` counts too. Links with a
 * scheme (https:, mailto:) and site paths (`/docs/errors`) are not files of the repository and
 * are left alone; links inside code blocks and code spans are not links.
 *
 * Code cites documents too (`docs/decisions/errors-and-validation.md` in a comment):
 * every `docs/...md` path named in the code folders must name a file that exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** README.md and every markdown file under docs/, relative to `base`, in a stable order. */
export function documentsOf(base: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(base, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.md')) found.push(relative);
    }
  };
  if (existsSync(path.join(base, 'docs'))) walk('docs');
  found.sort();
  return existsSync(path.join(base, 'README.md')) ? ['README.md', ...found] : found;
}

/** The lines of a document with fenced code blocks blanked, and code spans removed when asked. */
function proseLines(text: string, dropCodeSpans = true): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    if (fence !== undefined) return '';
    return dropCodeSpans ? line.replace(/(`+)[^`]*?\1/g, '') : line;
  });
}

/** The anchor a heading's text gets. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a markdown document offers: its headings (numbered when repeated) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  // a heading's code span is part of its anchor
  for (const line of proseLines(text, false)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = headingAnchor(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  }
  return anchors;
}

/** The link targets of one line: inline links and images, and reference definitions. */
function targetsOf(line: string): string[] {
  const targets = [...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
  const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)?.[1];
  if (definition) targets.push(definition);
  for (const match of line.matchAll(/<a\s+[^>]*href="([^"]+)"/g)) targets.push(match[1] as string);
  return targets;
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/');
}

/** Why a link from `file` (relative to `base`) to `target` does not resolve, or undefined when it does. */
function problemOf(base: string, file: string, target: string, anchorCache: Map<string, Set<string>>) {
  const hash = target.indexOf('#');
  let filePart: string;
  let anchor: string | undefined;
  try {
    filePart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  } catch {
    return 'not valid percent-encoding';
  }
  const resolved =
    filePart === '' ? path.join(base, file) : path.resolve(path.join(base, path.dirname(file)), filePart);
  if (!existsSync(resolved)) return `no such file: ${path.relative(base, resolved)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return undefined;
  let anchors = anchorCache.get(resolved);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(resolved, 'utf8'));
    anchorCache.set(resolved, anchors);
  }
  return anchors.has(anchor)
    ? undefined
    : `no heading with the anchor #${anchor} in ${path.relative(base, resolved)}`;
}

/** Every broken relative link and anchor of the given documents (default: README.md and docs/). */
export function brokenLinks(base: string = root, files: string[] = documentsOf(base)): BrokenLink[] {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  for (const file of files) {
    const lines = proseLines(readFileSync(path.join(base, file), 'utf8'));
    lines.forEach((line, index) => {
      for (const target of targetsOf(line)) {
        if (isExternal(target)) continue;
        const reason = problemOf(base, file, target, anchorCache);
        if (reason) broken.push({ file, line: index + 1, target, reason });
      }
    });
  }
  return broken;
}

/** The folders whose code may cite documents by path. */
const codeFolders = [
  'src',
  'ops',
  'indexer',
  'sample-data',
  'mcp',
  'bench',
  'scripts',
  'test',
  'client/src',
  'client/test',
];

function codeFilesOf(base: string, dir: string): string[] {
  if (!existsSync(path.join(base, dir))) return [];
  return readdirSync(path.join(base, dir), { withFileTypes: true }).flatMap((entry) => {
    // a hidden file is a test's passing copy (test/client/client-types.test.ts writes one and removes
    // it while other files run), not the repository's code
    if (entry.name.startsWith('.')) return [];
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : codeFilesOf(base, relative);
    return /\.(ts|mts|js|mjs|cjs)$/.test(entry.name) ? [relative] : [];
  });
}

/** Every `docs/...md` path the code names that is not a file of the repository. */
export function brokenDocPaths(base: string = root, folders: string[] = codeFolders): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of folders.flatMap((folder) => codeFilesOf(base, folder))) {
    readFileSync(path.join(base, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const match of line.matchAll(/\bdocs\/[\w-][\w./-]*?\.md\b/g)) {
          if (!existsSync(path.join(base, match[0])))
            broken.push({ file, line: index + 1, target: match[0], reason: `no such file: ${match[0]}` });
        }
      });
  }
  return broken;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // the sample-data package's README is checked with the documents: it links into docs/
  const files = [...documentsOf(root), 'sample-data/README.md'].filter((file) =>
    existsSync(path.join(root, file)),
  );
  const broken = [...brokenLinks(root, files), ...brokenDocPaths(root)];
  for (const link of broken) console.error(`${link.file}:${link.line}: ${link.target}: ${link.reason}`);
  console.log(
    `${files.length} documents and the code, ${broken.length} broken link${broken.length === 1 ? '' : 's'}`,
  );
  process.exitCode = broken.length > 0 ? 1 : 0;
}
