import { expect } from 'chai';
import type { JobReply, SendReply, SteppedJob } from '../../src/reader-threads/protocol.js';
import { JobStepper } from '../../src/reader-threads/stepper.js';
import { nextTurn, until } from '../helpers/until.js';

/** A job of `steps` steps that replies `step` after each and `done` (final) after the last; or throws at step `throwAt`. */
function countingJob(id: number, steps: number, send: SendReply, throwAt = -1): SteppedJob {
  let taken = 0;
  return {
    get runnable() {
      return taken < steps;
    },
    get over() {
      return taken >= steps;
    },
    step() {
      if (taken === throwAt) throw new Error(`step ${taken} broke`);
      taken += 1;
      send({ kind: taken === steps ? 'done' : 'step', id, final: taken === steps });
    },
    credit() {},
    close() {
      taken = steps;
    },
  };
}

describe('reader job stepper', () => {
  it('steps the jobs its maker makes in turn, one step each, and fails a job of a kind it has no maker for', async () => {
    const replies: JobReply[] = [];
    const stepper = new JobStepper(
      (id, job, send) => {
        if (job.kind !== 'count') throw new Error(`no job of kind ${job.kind}`);
        return countingJob(id, 3, send);
      },
      (reply) => replies.push(reply),
    );
    stepper.receive({ kind: 'job', id: 1, job: { kind: 'count' } });
    stepper.receive({ kind: 'job', id: 2, job: { kind: 'count' } });
    stepper.receive({ kind: 'job', id: 3, job: { kind: 'unknown' } });
    await until(() => replies.filter((r) => r.final).length === 3, { what: 'every job to end' });
    expect(replies.map((r) => `${r.id}:${r.kind}`)).to.deep.equal(['3:failed', '1:step', '2:step', '1:step', '2:step', '1:done', '2:done']);
    stepper.close();
  });

  it('answers a step that throws and a cancelled job with their final reply, and steps no more of them', async () => {
    const replies: JobReply[] = [];
    // job 1 breaks at its second step; job 2 would step for ever
    const stepper = new JobStepper((id, _job, send) => countingJob(id, id === 1 ? 5 : Number.MAX_SAFE_INTEGER, send, id === 1 ? 1 : -1), (reply) => replies.push(reply));
    stepper.receive({ kind: 'job', id: 1, job: { kind: 'count' } });
    stepper.receive({ kind: 'job', id: 2, job: { kind: 'count' } });
    await until(() => replies.some((r) => r.id === 1 && r.final), { what: 'the broken job to end' });
    const cancelledAt = replies.length;
    stepper.receive({ kind: 'cancel', id: 2 });
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    expect(replies.filter((r) => r.id === 1).map((r) => r.kind)).to.deep.equal(['step', 'failed']);
    expect(replies.slice(cancelledAt).map((r) => `${r.id}:${r.kind}`)).to.deep.equal(['2:cancelled']);
    stepper.close();
  });
});
