// Worker thread of the definition parser (definition-parser.ts): reads each definition text it is sent and answers
// with its content, in order. The main thread ends it when a text takes longer than the time limit.
import { parentPort } from 'node:worker_threads';
import { readDefinitionContent, type DefinitionContent } from './definition-content.js';
import type { ParserReply, ParserRequest } from './definition-parser.js';

const port = parentPort!;
const send = (reply: ParserReply): void => port.postMessage(reply);

port.on('message', (request: ParserRequest) => {
  let content: DefinitionContent;
  try {
    content = readDefinitionContent(request.text);
  } catch (err) {
    // readDefinitionContent does not throw on any text; this keeps the thread answering if a package upgrade does
    content = { ok: false, error: `the YAML cannot be read: ${(err as Error).message}` };
  }
  send({ kind: 'content', id: request.id, content });
});
send({ kind: 'ready' });
