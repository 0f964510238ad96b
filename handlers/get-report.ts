import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';
import { ifNoneMatchOf, rangeTagHolds } from '../src/common/entity-tags.js';
import { parseRange } from '../src/operations/byte-range.js';

/** GET /api/reports/{tenant}/{report_key}: the PDF, whole (200) or one byte range (206/416); 404 when absent. */
export async function getReport(input: Input<'getReport'>, deps: Deps): Promise<Result<'getReport'>> {
  const key = input.path.report_key;
  const report = await deps.content.report(deps.tenants.resolve(input.path.tenant), key);
  if (isMissing(report)) throw new Problem('not-found', `tenant "${input.path.tenant}" has no report "${key}"`);
  const size = report.pdf.length;
  const headers = {
    'Cache-Control': 'public, max-age=3600',
    ETag: report.etag,
    // shown inline, saved as <key>.pdf (the key's pattern needs no escaping)
    'Content-Disposition': `inline; filename="${key}.pdf"`,
    'Accept-Ranges': 'bytes',
  };
  const whole = { status: 200, contentType: 'application/pdf', body: report.pdf, headers } as const;
  // If-None-Match wins over Range (RFC 9110 13.2.2): a held tag is answered 304 at the edge.
  if (ifNoneMatchOf(input.headers)(report.etag)) return whole;
  // If-Range naming another representation: the client's parts are stale, send everything.
  const ifRange = input.headers['if-range'];
  if (ifRange !== undefined && !rangeTagHolds(ifRange, report.etag)) return whole;
  const range = parseRange(input.headers['range'], size);
  if (range.kind === 'whole') return whole;
  if (range.kind === 'unsatisfiable') {
    throw new Problem('range-not-satisfiable', `the range ${String(input.headers['range'])} starts beyond the end of the ${size}-byte file`, { representationBytes: size });
  }
  return {
    status: 206,
    contentType: 'application/pdf',
    body: report.pdf.subarray(range.start, range.end + 1),
    headers: { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${size}` },
  };
}
