// The search thread (search-thread.ts): large sidecars opened here as on the main thread, their names read into this
// thread's memory in slices between searches, and their searches answered with the bytes of the body, transferred
// to the main thread.
import '../sqlite-addon.js';
import { parentPort } from 'node:worker_threads';
import { memoryReducingCollection } from '../idle-collection.js';
import { EMPTY_RESULTS, SearchIndex } from './search-index.js';
import type { SearchThreadReply, SearchThreadRequest } from './search-thread.js';

const port = parentPort!;
const indexes = new Map<number, SearchIndex>();
let collect: (() => void) | undefined;
const reply = (message: SearchThreadReply, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

function indexOf(key: number): SearchIndex {
  const index = indexes.get(key);
  if (index === undefined) throw new Error('the search thread has no such index open');
  return index;
}

port.on('message', (request: SearchThreadRequest) => {
  try {
    switch (request.kind) {
      case 'open':
        // a file that cannot be opened leaves no index: its searches fail and the main thread answers them itself
        indexes.set(request.key, SearchIndex.open(request.file, request.generation));
        return;
      case 'names':
        // in slices, even a small one: searches of the other indexes go on between them
        indexOf(request.key)
          .loadNames(0)
          .then(
            (namesBytes) => reply({ kind: 'answer', id: request.id, namesBytes }),
            (err: unknown) => reply({ kind: 'failed', id: request.id, message: (err as Error).message }),
          );
        return;
      case 'drop-names':
        indexes.get(request.key)?.dropNames();
        return;
      case 'search': {
        const results = indexOf(request.key).search(request.folded);
        if (results === EMPTY_RESULTS) {
          reply({ kind: 'answer', id: request.id, body: null });
          return;
        }
        // the body has a buffer of its own (encodeHitRows): moved, not copied
        const body = results.bytes;
        reply({ kind: 'answer', id: request.id, body }, [body.buffer as ArrayBuffer]);
        return;
      }
      case 'close':
        indexes.get(request.key)?.close();
        indexes.delete(request.key);
        return;
      case 'collect':
        (collect ??= memoryReducingCollection())();
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
