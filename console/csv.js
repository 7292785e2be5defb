// CSV for the list matcher (match.js): reading a pasted or uploaded table and writing the
// answer for Excel. Plain browser JavaScript; no DOM, so it runs anywhere a module does.

/**
 * Text of a file as bytes: a UTF-8 BOM means UTF-8; 'auto' otherwise tries strict UTF-8 and
 * falls back to Shift_JIS (a Japanese Excel's "CSV" is Shift_JIS, and its bytes are almost never
 * valid UTF-8). Returns { text, encoding } with the BOM removed.
 */
export function decodeBytes(bytes, choice = 'auto') {
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (hasBom && choice !== 'shift_jis')
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (choice === 'utf-8') return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8' };
  if (choice === 'shift_jis')
    return { text: new TextDecoder('shift_jis').decode(bytes), encoding: 'shift_jis' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('shift_jis').decode(bytes), encoding: 'shift_jis' };
  }
}

/** Tab when the first line has one (a paste from Excel), else comma. */
export function guessDelimiter(text) {
  const firstLine = text.slice(0, text.search(/\r\n|\n|\r|$/));
  return firstLine.includes('\t') ? '\t' : ',';
}

/**
 * RFC 4180 with the usual leniencies: fields in double quotes may hold the delimiter, line
 * breaks and "" for a quote; lines end with CRLF, LF or CR; a last line without a line break
 * counts. `a,"b ""c"", d",e` -> [['a', 'b "c", d', 'e']]. Wholly empty lines are dropped.
 */
export function parseCsv(text, delimiter = ',') {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    if (row.some((cell) => cell !== '')) rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const char = text[i];
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += char;
      i += 1;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) endField();
    else if (char === '\r' || char === '\n') {
      endRow();
      if (char === '\r' && text[i + 1] === '\n') i += 1;
    } else field += char;
    i += 1;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/**
 * One cell for Excel: a text starting with = + - @ tab or CR would be read as a formula
 * (`=HYPERLINK(...)` from a pasted CRM list), so it gets a leading ' and stays text; then RFC
 * 4180 quoting. `=1+2` -> `'=1+2`; `a,"b"` -> `"a,""b"""`.
 */
export function csvCell(value) {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of cells as CSV text with CRLF line ends and a UTF-8 BOM (Excel reads it as UTF-8). */
export function toCsv(rows) {
  return `\ufeff${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
