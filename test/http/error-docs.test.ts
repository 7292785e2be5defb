/**
 * The renderer behind `GET /docs/errors` (src/http/error-docs.ts), on Markdown written for the
 * test: only the "Errors" section is shown, each block kind (paragraph, list, code block,
 * table) becomes its HTML, every code row gets its anchor, and text is escaped. The served
 * page itself, from docs/api.md, is checked through the app in test/errors/errors-that-teach.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { renderErrorDocs } from '../../src/http/error-docs.js';

/** The page's own parts, one per element: what comes after its fixed heading and lead paragraph. */
const body = (html: string) => {
  const lines = html.split('\n');
  const lead = lines.findIndex((line) => line.startsWith('<p>From the API reference'));
  return lines
    .slice(lead + 1, -1)
    .join('\n')
    .split(/\n(?=<(?:p|ul|pre|table|tr)[ >])/);
};

describe('renderErrorDocs', () => {
  it('shows the Errors section alone, up to the next heading, each block as its HTML', () => {
    const markdown = [
      '# API',
      'An intro that is not shown.',
      '## Errors',
      '',
      'Every error has a **code**',
      'and a `docUrl`.',
      '',
      '- first item',
      '  continued',
      '- second <item>',
      '',
      '```',
      '{"code": "a & b"}',
      '```',
      '| Code | Status |',
      '|---|---|',
      '| `insufficient_credits` | 402 |',
      '| a plain cell | **none** |',
      '## Next section',
      'Not shown either.',
    ].join('\n');
    expect(body(renderErrorDocs(markdown))).toEqual([
      '<p>Every error has a <strong>code</strong>\nand a <code>docUrl</code>.</p>',
      '<ul><li>first item\n  continued</li><li>second &lt;item&gt;</li></ul>',
      '<pre><code>{&quot;code&quot;: &quot;a &amp; b&quot;}</code></pre>',
      '<table><thead><tr><th>Code</th><th>Status</th></tr></thead><tbody><tr id="insufficient_credits"><td><a href="#insufficient_credits"><code>insufficient_credits</code></a></td><td>402</td></tr>',
      '<tr><td>a plain cell</td><td><strong>none</strong></td></tr></tbody></table>',
    ]);
  });

  it('a section that runs to the end of the file, and a code block left open, are shown whole', () => {
    const markdown = ['## Errors', 'Last words.', '```', 'never closed'].join('\n');
    expect(body(renderErrorDocs(markdown))).toEqual([
      '<p>Last words.</p>',
      '<pre><code>never closed</code></pre>',
    ]);
  });

  it('no Errors section: the page has its heading and lead only', () => {
    const html = renderErrorDocs('# API\n## Searching\nText.');
    expect(body(html)).toEqual(['']);
    expect(html).toContain('<h1>Errors</h1>');
    expect(html.endsWith('</body></html>')).toBe(true);
  });
});
