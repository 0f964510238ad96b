import type { MessagePort } from 'node:worker_threads';
import type { JobMaker, ReaderReply, ReaderRequest } from './protocol.js';
import { JobStepper } from './stepper.js';

/**
 * What a reader thread does: runs the jobs the main thread sends through `port`, made by `makeJob`, a step at a
 * time and in turn, one step per event-loop turn, so that messages (credit, cancel, new jobs) are heard between
 * steps. `beforeStep` runs before each step (a test holds the thread there).
 */
export function serveReaderJobs(port: MessagePort, makeJob: JobMaker, beforeStep?: () => void): void {
  const stepper = new JobStepper(makeJob, (reply, transfer = []) => port.postMessage(reply satisfies ReaderReply, transfer), beforeStep);
  port.on('message', (request: ReaderRequest) => stepper.receive(request));
  port.postMessage({ kind: 'ready' } satisfies ReaderReply);
}
