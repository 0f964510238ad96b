import { expect } from 'chai';
import { QuietRelease, collectAllGarbage, type QuietClock } from '../../src/memory/quiet-release.js';

/** A clock whose time moves only when the test says so, and whose timers run when their time has come. */
function manualClock(): QuietClock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  return {
    now: () => now,
    after(ms, run) {
      const timer = { at: now + ms, run, cancelled: false };
      timers.push(timer);
      return { cancel: () => (timer.cancelled = true) };
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => !t.cancelled && t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.run();
      }
      now = until;
    },
    pending: () => timers.filter((t) => !t.cancelled).length,
  };
}

describe('release once the server is quiet', () => {
  it('releases once, quietMs after the last request of a busy period, and again after the next one', () => {
    const clock = manualClock();
    let releases = 0;
    const quiet = new QuietRelease(() => (releases += 1), 5000, clock);
    quiet.touch();
    clock.advance(3000);
    quiet.touch(); // the busy period goes on
    clock.advance(4000);
    expect(releases, '4 s after the last request').to.equal(0);
    clock.advance(1000);
    expect(releases, '5 s after the last request').to.equal(1);
    clock.advance(60_000);
    expect(releases, 'no request since').to.equal(1);
    quiet.touch();
    clock.advance(5000);
    expect(releases, 'after the next busy period').to.equal(2);
  });

  it('keeps one timer however many requests arrive', () => {
    const clock = manualClock();
    const quiet = new QuietRelease(() => undefined, 5000, clock);
    for (let i = 0; i < 1000; i++) quiet.touch();
    expect(clock.pending()).to.equal(1);
  });

  it('releases nothing once stopped', () => {
    const clock = manualClock();
    let releases = 0;
    const quiet = new QuietRelease(() => (releases += 1), 5000, clock);
    quiet.touch();
    quiet.stop();
    quiet.touch();
    clock.advance(10_000);
    expect(releases).to.equal(0);
  });

  it('collects without --expose-gc and leaves no gc on the global object', () => {
    expect(() => collectAllGarbage()).to.not.throw();
    expect(collectAllGarbage).to.not.throw(); // the second time reuses the collector
    expect('gc' in globalThis, 'gc on the global object').to.equal(false);
  });
});
