/** Parses RFC 4180 CSV (CRLF records, quoted fields with doubled quotes) into rows of fields; strict about line ends. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field === '') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        field += text[i];
        i += 1;
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`garbage after quoted field at ${i}`);
      continue;
    }
    if (c === ',') {
      row.push(field);
      field = '';
      i += 1;
    } else if (c === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`bare CR at ${i}`);
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\n') {
      throw new Error(`bare LF outside quotes at ${i}`);
    } else {
      field += c;
      i += 1;
    }
  }
  if (field !== '' || row.length > 0) throw new Error('last record has no CRLF');
  return rows;
}
