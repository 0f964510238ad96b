// The search thread (search-thread.ts): large sidecars opened here as on the main thread, their names read into this
// thread's memory in slices between searches, and their searches answered with the text of the body.
import '../sqlite-addon.js';
import { parentPort } from 'node:worker_threads';
import { EMPTY_RESULTS, SearchIndex } from './search-index.js';
import type { SearchThreadReply, SearchThreadRequest } from './search-thread.js';

/** Work between two give-ways of a names read on this thread (the main thread's slices are shorter: name-index.ts). */
const NAMES_SLICE_MS = 20;

const port = parentPort!;
const indexes = new Map<number, SearchIndex>();
const reply = (message: SearchThreadReply): void => port.postMessage(message);

function indexOf(key: number): SearchIndex {
  const index = indexes.get(key);
  if (index === undefined) throw new Error('the search thread has no such index open');
  return index;
}

/** Answers a search with the text of its body (null: no hit), or its failure. */
function search(index: SearchIndex, request: Extract<SearchThreadRequest, { kind: 'search' }>): void {
  try {
    const results = index.search(request.folded);
    if (results === EMPTY_RESULTS) {
      reply({ kind: 'answer', id: request.id, body: null });
      return;
    }
    reply({ kind: 'answer', id: request.id, body: results.text });
  } catch (err) {
    reply({ kind: 'failed', id: request.id, message: (err as Error).message });
  }
}

port.on('message', (request: SearchThreadRequest) => {
  try {
    switch (request.kind) {
      case 'open':
        // a file that cannot be opened leaves no index: its searches fail and the main thread answers them itself
        indexes.set(request.key, SearchIndex.open(request.file, request.generation));
        return;
      case 'names':
        // in slices, even a small one: searches go on between them. Longer slices than on the main thread: searches
        // queued behind a slice wait for it, but a read in short slices gives way to every search queued meanwhile
        // (each answered from the sidecar's statements, slower): with 50 searches at a time, reading 200,000 items'
        // names took 2.6 s in 4 ms slices, 0.7–1.3 s in these (0.4 s without searches, the thread's start included)
        indexOf(request.key)
          .loadNames(0, NAMES_SLICE_MS, request.budgetBytes)
          .then(
            (namesBytes) => reply({ kind: 'answer', id: request.id, namesBytes }),
            (err: unknown) => reply({ kind: 'failed', id: request.id, message: (err as Error).message }),
          );
        return;
      case 'drop-names':
        indexes.get(request.key)?.dropNames();
        return;
      case 'search': {
        const index = indexOf(request.key);
        // The names stored in a sidecar are in within tens of milliseconds (a thread started again reads them): a
        // search waits for them rather than run the sidecar's statements (about 1.4 ms against 0.15) between their
        // slices, which made a read with 50 searches at a time take seconds.
        const reading = index.namesReading;
        if (reading === null) search(index, request);
        else void reading.then(() => search(index, request));
        return;
      }
      case 'close':
        indexes.get(request.key)?.close();
        indexes.delete(request.key);
        return;
      case 'end':
        // a names read still in slices sees its index closed at its next slice and stops
        for (const index of indexes.values()) index.close();
        indexes.clear();
        port.close();
        return;
    }
  } catch (err) {
    if ('id' in request) reply({ kind: 'failed', id: request.id, message: (err as Error).message });
  }
});
