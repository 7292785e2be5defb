/**
 * The two texts generated from the settings table (src/config/settings.ts): the reference in
 * docs/settings.md and `.env.example`. `npm run gen:settings` writes them;
 * test/config/settings.test.ts fails, naming that command, when a committed one differs.
 */
import type { Setting } from './schema.js';
import { sections } from './settings.js';

export const regenerateCommand = 'npm run gen:settings';

/** The files generated from the table, by path from the project folder. */
export function generatedFiles(): Record<string, string> {
  return { 'docs/settings.md': settingsReference(), '.env.example': envExample() };
}

/** The default column: the text unset means, or what leaving it unset does. */
export function defaultCell(setting: Setting): string {
  if (setting.default !== undefined) return setting.default === '' ? '(empty)' : `\`${setting.default}\``;
  // a computed default is a literal too (a path); an optional setting's is a description
  const unset = setting.unset ?? '';
  return /^`[^`]*`$/.test(unset) ? unset : `*unset*: ${unset}`;
}

function secretCell(setting: Setting): string {
  if (setting.secret) return 'yes';
  return setting.kind.secretPart ?? '';
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function referenceRow(setting: Setting): string {
  const cells = [
    `\`${setting.name}\``,
    defaultCell(setting),
    setting.kind.accepts,
    secretCell(setting),
    setting.doc,
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

export function settingsReference(): string {
  const lines = [
    '# Settings',
    '',
    `<!-- Generated from src/config/settings.ts by \`${regenerateCommand}\`; edit the table there, not this file. -->`,
    '',
    'Every environment variable the API, the indexer and the CLIs read. Each is declared once, in',
    'the table of `src/config/settings.ts`, and read and checked at start by `loadConfig`',
    '(`src/config.ts`). Nothing needs to be set: unset, each takes the default below (an empty',
    'variable counts as unset, except where the empty text is a value). A bad value stops the',
    'start with one line naming the variable and the reason, never repeating a secret',
    '(`configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got',
    '"verbose"`). `npm start -- --print-config` prints the effective configuration, secrets masked',
    "(a URL's user and password, the OpenSearch password, the operator token, the cursor secrets).",
    '`.env.example` lists the same variables, commented out.',
    '',
    'Rules across settings, each refused with one line naming the variables: credentials and a CA',
    'file need `https://` nodes in `OPENSEARCH_URL` and are given one way (in the URL, or',
    '`OPENSEARCH_USERNAME` with `OPENSEARCH_PASSWORD` or `OPENSEARCH_PASSWORD_FILE`);',
    '`CURSOR_KEYS` and `CURSOR_SECRET` are not both set; `CREDIT_RESERVATION_TIMEOUT_SECONDS` is',
    'longer than `REQUEST_DEADLINE_MS` and `MATCH_DEADLINE_MS`; `MATCH_CREDIT_COST` is at most',
    '`SEARCH_CREDIT_COST`.',
  ];
  for (const part of sections) {
    lines.push('', `## ${part.title}`, '', part.about, '');
    lines.push('| variable | default | accepts | secret | what it does |', '|---|---|---|---|---|');
    lines.push(...part.settings.map((setting) => referenceRow(setting)));
  }
  return `${lines.join('\n')}\n`;
}

/** `text` as comment lines of at most `width` characters. */
function commentLines(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

function envEntry(setting: Setting): string[] {
  const unset = setting.default === undefined ? [`Unset: ${setting.unset ?? ''}.`] : [];
  const secret = setting.secret ? ['Secret: never printed.'] : [];
  const value = setting.secret || setting.default === undefined ? '' : setting.default;
  return [
    ...commentLines([setting.doc, `Accepts ${setting.kind.accepts}.`, ...unset, ...secret].join(' ')),
    `# ${setting.name}=${value}`,
  ];
}

export function envExample(): string {
  const lines = [
    `# Generated from src/config/settings.ts by \`${regenerateCommand}\`; reference: docs/settings.md.`,
    '# Every variable is commented out: unset, each takes the default shown after its `=`.',
  ];
  for (const part of sections) {
    lines.push('', `# --- ${part.title} ---`);
    for (const setting of part.settings) lines.push('', ...envEntry(setting));
  }
  return `${lines.join('\n')}\n`;
}
