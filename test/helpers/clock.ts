import { DEFAULT_OIDC_TIMING, type OidcTiming } from '../../src/auth/oidc.js';

/**
 * A clock handed to the server in place of `Date.now`: it reads what the test set and moves only when the test
 * moves it, so that a test of a cooldown, a lease or an expiry sets the time instead of waiting for it to pass.
 */
export class ManualClock {
  constructor(private time: number = Date.now()) {}

  /** The time it reads, in ms since the epoch. */
  readonly now = (): number => this.time;

  /** A wait of the code under test ends at once, with the clock moved on by `ms`. */
  readonly wait = (ms: number): Promise<void> => {
    this.time += ms;
    return Promise.resolve();
  };

  advance(ms: number): void {
    this.time += ms;
  }

  set(time: number): void {
    this.time = time;
  }

  /** The server's OpenID provider timing on this clock, with `changes` applied. */
  oidcTiming(changes: Partial<Omit<OidcTiming, 'now' | 'wait'>> = {}): OidcTiming {
    return { ...DEFAULT_OIDC_TIMING, ...changes, now: this.now, wait: this.wait };
  }
}
