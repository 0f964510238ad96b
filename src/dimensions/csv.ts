const QUOTES = /"/g;
const NEEDS_QUOTES = /[",\r\n]/;

/** Text field: formula guard (leading `'`, always quoted) for = + - @ TAB CR, else RFC 4180 quoting when needed. */
function textField(text: string): string {
  const first = text.charCodeAt(0);
  // = + - @ TAB CR: a spreadsheet would evaluate the cell (OWASP "CSV injection")
  if (first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) {
    return `"'${text.replace(QUOTES, '""')}"`;
  }
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTES, '""')}"` : text;
}

/**
 * One CSV field (RFC 4180): NULL → empty; numbers as JavaScript prints them; BLOBs as hex; text quoted when it
 * holds a comma, quote, CR or LF (quotes doubled). Text starting with = + - @ TAB or CR gets a leading `'` and
 * is always quoted, so spreadsheets show it as text instead of evaluating it.
 */
export function csvField(value: unknown): string {
  if (typeof value === 'string') return textField(value);
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return textField(String(value));
}

/** One CSV record with its CRLF line end. */
export function csvRecord(values: readonly unknown[]): string {
  let line = csvField(values[0]);
  for (let i = 1; i < values.length; i += 1) line += `,${csvField(values[i])}`;
  return `${line}\r\n`;
}
