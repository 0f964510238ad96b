import type { ImageMediaType } from '../ports/tenant-reads.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The image type of `bytes`, decided from their content (never from a file name or a stored label):
 * PNG and JPEG signatures, a RIFF/WEBP header, or an XML text whose root element is `<svg`. Null otherwise.
 */
export function sniffImageType(bytes: Buffer): ImageMediaType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (isSvg(bytes)) return 'image/svg+xml';
  return null;
}

/** XML prolog items that may precede the root element: declaration, comments, processing instructions, doctype. */
const PROLOG = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*/i;

function isSvg(bytes: Buffer): boolean {
  let text = bytes.subarray(0, 4096).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rest = text.replace(PROLOG, '');
  return /^<svg[\s>/]/i.test(rest) || /^<[a-z0-9_-]+:svg[\s>/]/i.test(rest);
}
