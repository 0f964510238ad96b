import { expect } from 'chai';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { csvField, csvRecord } from '../../src/dimensions/csv.js';
import { CHUNK_BUFFER_BYTES, rowEncoder } from '../../src/dimensions/csv-chunks.js';
import { csvExportStream, type CsvChunks } from '../../src/dimensions/csv-export-stream.js';
import { affinityOf } from '../../src/dimensions/dimension-table.js';
import { filterValue } from '../../src/dimensions/export-options.js';
import { parseCsv } from '../helpers/csv.js';
import { nextTurn, until } from '../helpers/until.js';

/** Endless rows that count how many were pulled and whether the iterator was closed. */
function countingRows(limit = Number.POSITIVE_INFINITY): { rows: Iterator<unknown[]>; pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  const rows: Iterator<unknown[]> = {
    next: () => (pulled >= limit ? { done: true, value: undefined } : { done: false, value: [`M-${pulled++}`, 'x'.repeat(80), 1.5] }),
    return: () => {
      closed = true;
      return { done: true, value: undefined };
    },
  };
  return { rows, pulled: () => pulled, closed: () => closed };
}

/** Chunks encoded from `rows` on this thread, as a reader encodes them, for the stream on its own. */
function rowChunks(rows: Iterator<unknown[]>): CsvChunks {
  const encoder = rowEncoder(rows);
  const target = Buffer.alloc(CHUNK_BUFFER_BYTES);
  let done = false;
  let records = 0;
  return {
    next() {
      if (done) return Promise.resolve(null);
      const encoded = encoder.encodeInto(target);
      done = encoded.done;
      records += encoded.records;
      const chunk = Buffer.concat([target.subarray(0, encoded.used), ...(encoded.long === null ? [] : [encoded.long])]);
      return Promise.resolve(chunk.length === 0 ? null : chunk);
    },
    written: () => undefined,
    cancel: () => encoder.close(),
    get rows() {
      return records;
    },
  };
}

describe('dimension CSV', () => {
  it('writes RFC 4180 fields: NULL empty, numbers as is, quotes doubled, commas and line breaks quoted', () => {
    expect(csvRecord(['a', null, 7, 1.25, 9007199254740993n, 'x,y', 'say "hi"', 'l1\nl2', 'cr\r'])).to.equal(
      'a,,7,1.25,9007199254740993,"x,y","say ""hi""","l1\nl2","cr\r"\r\n',
    );
    expect(csvField(Buffer.from([0xca, 0xfe]))).to.equal('cafe');
  });

  it('guards text that a spreadsheet would evaluate with a leading quote, and never touches numbers', () => {
    for (const formula of ['=SUM(A1)', '+41 44', '-10%', '@Lager', '\tTab', '\rCR']) {
      expect(csvField(formula)).to.equal(`"'${formula}"`);
    }
    expect(csvField('=HYPERLINK("x")')).to.equal('"\'=HYPERLINK(""x"")"');
    expect(csvField(-5)).to.equal('-5');
    expect(csvField(-5n)).to.equal('-5');
    expect(csvField('a=b')).to.equal('a=b');
    expect(parseCsv(csvRecord(['=1+1', 'plain']))).to.deep.equal([["'=1+1", 'plain']]);
  });

  it('derives SQLite affinity from the declared type', () => {
    expect(['INTEGER', 'BIGINT', 'TEXT', 'VARCHAR(10)', '', 'BLOB', 'REAL', 'DOUBLE', 'BOOLEAN', 'NUMERIC'].map(affinityOf)).to.deep.equal([
      'integer',
      'integer',
      'text',
      'text',
      'blob',
      'blob',
      'real',
      'real',
      'numeric',
      'numeric',
    ]);
  });

  it('reads filter values by column affinity: booleans, integers, numbers, text, empty', () => {
    const integer = { name: 'active', affinity: 'integer' } as const;
    expect([filterValue(integer, 'true'), filterValue(integer, 'false'), filterValue(integer, '1'), filterValue(integer, '-12')]).to.deep.equal([1, 0, 1, -12]);
    expect(filterValue(integer, '9223372036854775807')).to.equal(9223372036854775807n);
    expect(filterValue(integer, 'yes')).to.equal(undefined);
    expect(filterValue(integer, '1.5')).to.equal(undefined);
    const real = { name: 'price', affinity: 'real' } as const;
    expect(filterValue(real, '12.5')).to.equal(12.5);
    expect(filterValue(real, 'true')).to.equal(undefined);
    expect(filterValue(real, 'abc')).to.equal(undefined);
    expect(filterValue({ name: 'note', affinity: 'text' }, 'true')).to.equal('true');
    expect(filterValue({ name: 'note', affinity: 'text' }, '')).to.equal(null);
  });

  it('streams the header and every row, then releases its source once', async () => {
    const source = countingRows(1000);
    let releases = 0;
    const stream = csvExportStream(['id', 'text', 'n'], rowChunks(source.rows), () => (releases += 1));
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const rows = parseCsv(text);
    expect(rows).to.have.length(1001);
    expect(rows[0]).to.deep.equal(['id', 'text', 'n']);
    expect(rows[1000]![0]).to.equal('M-999');
    expect(releases).to.equal(1);
  });

  it('stops pulling rows while the consumer does not read (back-pressure)', async () => {
    const source = countingRows();
    const stream = csvExportStream(['id', 'text', 'n'], rowChunks(source.rows), () => undefined);
    const stalled = new Writable({ highWaterMark: 1024, write: () => undefined }); // never acknowledges a chunk
    stream.pipe(stalled);
    // the consumer's buffer is full, so the stream waits for it to drain, and the stream's own buffer is full too
    await until(() => stalled.writableNeedDrain && stream.readableLength >= stream.readableHighWaterMark, { what: 'the stream to wait, full' });
    const pulled = source.pulled();
    // the stream asks for no chunk while its buffer is full
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    expect(source.pulled()).to.equal(pulled);
    expect(pulled).to.be.lessThan(20000); // a few 256 KiB chunks of ~90-byte rows, not an endless read
    stream.destroy();
  });

  it('hands each chunk back only once its destination is done with it, piped as Koa and pipeline pipe it', async () => {
    for (const end of [true, false]) {
      // a source that fills a buffer again as soon as it is handed back, as the readers do
      const sent: Buffer[] = [];
      let handedBack = 0;
      let made = 0;
      const chunks: CsvChunks = {
        next: () => Promise.resolve(made === 40 ? null : (sent[sent.length] = Buffer.alloc(1000, `row ${made++}\r\n`))),
        written(chunk) {
          handedBack += 1;
          chunk.fill('X');
        },
        cancel: () => undefined,
        rows: 0,
      };
      const stream = csvExportStream(['id'], chunks, () => undefined);
      // a destination that is done with each chunk a turn after it was given, checking its bytes then
      const received: Buffer[] = [];
      const destination = new Writable({
        highWaterMark: 4000,
        write(chunk: Buffer, _encoding, done) {
          const copy = Buffer.from(chunk);
          setImmediate(() => {
            expect(chunk.equals(copy), 'bytes unchanged until the destination is done with them').to.equal(true);
            received.push(copy);
            done();
          });
        },
      });
      stream.pipe(destination, { end });
      if (!end) {
        await once(stream, 'end');
        destination.end();
      }
      await once(destination, 'finish');
      expect(Buffer.concat(received).toString()).to.equal('id\r\n' + Array.from({ length: 40 }, (_, i) => Buffer.alloc(1000, `row ${i}\r\n`).toString()).join(''));
      expect(handedBack, `end: ${end}`).to.equal(40);
    }
  });

  it('closes the iterator and releases once when destroyed mid-way (client gone)', async () => {
    const source = countingRows();
    let releases = 0;
    const stream = csvExportStream(['id'], rowChunks(source.rows), () => (releases += 1));
    stream.once('data', () => stream.destroy());
    await new Promise((resolve) => stream.once('close', resolve));
    expect(source.closed()).to.equal(true);
    expect(releases).to.equal(1);
  });
});
