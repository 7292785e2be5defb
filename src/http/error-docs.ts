/**
 * The served error documentation, `GET /docs/errors`: docs/api.md's "Errors" section as one
 * HTML page, one anchor per code, so every error body's `docUrl` (`/docs/errors#<code>`)
 * lands on the row that explains it. docs/api.md stays the one text (test/errors/error-codes.test.ts
 * keeps its table and the catalogue in step); this file only renders it, once at start.
 *
 *   | `insufficient_credits` | 402 | The balance ... | Ask the operator ... |
 *   -> <tr id="insufficient_credits"><td><a href="#insufficient_credits"><code>insufficient_credits</code></a></td>...
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

export const apiDocFile = path.join(projectRoot, 'docs', 'api.md');

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The little inline Markdown the section uses: `code`, **bold**; everything else as text. */
function inline(markdown: string): string {
  return escapeHtml(markdown)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** The lines of the `## Errors` section, up to the next `## ` heading. */
function errorsSection(markdown: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === '## Errors');
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

function renderTable(rows: string[]): string {
  const [head = '', , ...body] = rows;
  const header = cellsOf(head)
    .map((cell) => `<th>${inline(cell)}</th>`)
    .join('');
  const bodyRows = body.map((row) => {
    const cells = cellsOf(row);
    const code = /^`([a-z_]+)`$/.exec(cells[0] ?? '')?.[1];
    const first = code ? `<a href="#${code}"><code>${code}</code></a>` : inline(cells[0] ?? '');
    const rest = cells.slice(1).map((cell) => `<td>${inline(cell)}</td>`);
    return `<tr${code ? ` id="${code}"` : ''}><td>${first}</td>${rest.join('')}</tr>`;
  });
  return `<table><thead><tr>${header}</tr></thead><tbody>${bodyRows.join('\n')}</tbody></table>`;
}

/** Paragraphs, lists, code blocks and the table of the section, as HTML. */
export function renderErrorDocs(markdown: string): string {
  const parts: string[] = [];
  const lines = errorsSection(markdown);
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] ?? '';
    const block: string[] = [];
    if (line.startsWith('```')) {
      for (i += 1; i < lines.length && !(lines[i] ?? '').startsWith('```'); i += 1)
        block.push(lines[i] ?? '');
      parts.push(`<pre><code>${escapeHtml(block.join('\n'))}</code></pre>`);
      i += 1;
    } else if (line.startsWith('|')) {
      for (; i < lines.length && (lines[i] ?? '').startsWith('|'); i += 1) block.push(lines[i] ?? '');
      parts.push(renderTable(block));
    } else if (line.startsWith('- ')) {
      for (; i < lines.length && (lines[i] ?? '').trim() !== '' && !(lines[i] ?? '').startsWith('|'); i += 1)
        block.push(lines[i] ?? '');
      const items = block.join('\n').split(/\n(?=- )/);
      parts.push(`<ul>${items.map((item) => `<li>${inline(item.slice(2))}</li>`).join('')}</ul>`);
    } else if (line.trim() !== '') {
      for (
        ;
        i < lines.length && (lines[i] ?? '').trim() !== '' && !/^(- |\||```)/.test(lines[i] ?? '');
        i += 1
      )
        block.push(lines[i] ?? '');
      parts.push(`<p>${inline(block.join('\n'))}</p>`);
    } else i += 1;
  }
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Errors - Corporate and Job Search API</title>',
    '<style>body{font-family:sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;line-height:1.45}',
    'table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top;text-align:left}',
    'tr:target{background:#fff4c2}code{font-size:.95em}</style></head><body>',
    '<h1>Errors</h1>',
    '<p>From the API reference (docs/api.md); the full description is at <a href="/docs">/docs</a>.</p>',
    ...parts,
    '</body></html>',
  ].join('\n');
}

/** The page, rendered from docs/api.md once. */
export function errorDocsPage(file = apiDocFile): string {
  return renderErrorDocs(readFileSync(file, 'utf8'));
}
