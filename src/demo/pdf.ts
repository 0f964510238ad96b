/** Content of a one-page report PDF. */
export interface PdfPage {
  title: string;
  /** Body lines, drawn top to bottom in 10 pt Helvetica. */
  lines: readonly string[];
  /** PDF date, e.g. `D:20261101060000Z`. */
  creationDate: string;
}

const REPLACEMENTS: Readonly<Record<string, string>> = { '–': '-', '—': '-', '’': "'", '‘': "'", '“': '"', '”': '"', '…': '...', 'Œ': 'OE', 'œ': 'oe' };

/** Text as a PDF literal string in WinAnsi (Latin-1 subset): unsupported characters replaced, `\`, `(`, `)` escaped. */
export function pdfString(text: string): string {
  const latin1 = [...text].map((char) => REPLACEMENTS[char] ?? (char.charCodeAt(0) <= 0xff && !/[\x00-\x1f\x7f-\x9f]/.test(char) ? char : '?')).join('');
  return `(${latin1.replace(/[\\()]/g, '\\$&')})`;
}

/** A valid single-page PDF 1.4 (catalog, pages, page, Helvetica fonts, text stream, info, xref, trailer). */
export function buildPdf(page: PdfPage): Buffer {
  const text = [
    'BT /F2 16 Tf 56 786 Td', `${pdfString(page.title)} Tj`, 'ET',
    'BT /F1 10 Tf 14 TL 56 756 Td',
    ...page.lines.slice(0, 48).map((line, index) => `${index === 0 ? '' : 'T* '}${pdfString(line)} Tj`),
    'ET',
  ].join('\n');
  const stream = Buffer.from(text, 'latin1');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>', 'latin1'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>', 'latin1'),
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]),
    Buffer.from(`<< /Title ${pdfString(page.title)} /Producer (analytics-desk demo-data) /CreationDate (${page.creationDate}) >>`, 'latin1'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    length += object.length;
  });
  const xref = [
    'xref', `0 ${objects.length + 1}`, '0000000000 65535 f\r',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n\r`),
    'trailer', `<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>`,
    'startxref', String(length), '%%EOF',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}
