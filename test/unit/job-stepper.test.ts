import { expect } from 'chai';
import path from 'node:path';
import type { JobReply } from '../../src/reader-threads/protocol.js';
import { JobStepper } from '../../src/reader-threads/stepper.js';
import { nextTurn, until } from '../helpers/until.js';

describe('reader job stepper', () => {
  it("calls afterStep once after every step, after the step's replies, and not once no job is left", async () => {
    const replies: JobReply[] = [];
    const afterEach: number[] = [];
    const stepper = new JobStepper(
      (reply) => replies.push(reply),
      () => afterEach.push(replies.length),
    );
    const missing = path.join('/nonexistent', 'kls.sqlite');
    stepper.receive({ id: 1, kind: 'explain', file: missing, query: { entityType: null, entityId: 'x' } as never });
    await until(() => replies.length === 1, { deadline: 5_000, every: 5, what: 'the explain to end' });
    expect(replies[0]).to.include({ id: 1, kind: 'replaced' }); // no such file
    await until(() => afterEach.length === 1, { deadline: 5_000, every: 5, what: 'afterStep after the step' });
    // the step's reply was sent before afterStep ran
    expect(afterEach).to.deep.equal([1]);
    for (let turn = 0; turn < 3; turn++) await nextTurn();
    expect(afterEach).to.deep.equal([1]);
    stepper.close();
  });
});
