// Runs the test object store (s3rver, test/helpers/s3rver.ts) in a process of its own, started by
// s3rver-process.ts with Node's --openssl-legacy-provider: s3rver 3.7.1 encrypts a listing's continuation token
// with DES, which OpenSSL 3 refuses without that provider, so in the test process a listing past 1,000 keys
// fails on its second page. Speaks to its parent over the IPC channel: {id, command} in, {id, result} out.
import { startObjectStore } from './s3rver.js';

const store = await startObjectStore(process.argv[2]);
type Command = { id: number; command: 'traffic' | 'resetTraffic' | 'failLaterListingPages' | 'answerListingPages' | 'close' };
process.on('message', (message: Command) => {
  void (async () => {
    let result: unknown = null;
    if (message.command === 'traffic') result = { ...store.traffic };
    else if (message.command === 'resetTraffic') store.resetTraffic();
    else if (message.command === 'failLaterListingPages') store.failLaterListingPages(true);
    else if (message.command === 'answerListingPages') store.failLaterListingPages(false);
    else await store.close();
    process.send!({ id: message.id, result });
    if (message.command === 'close') process.exit(0);
  })();
});
process.send!({ id: 0, result: { endpoint: store.endpoint } });
