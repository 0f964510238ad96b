/** How long `until` waits at most, how often it asks, and what it waits for (named when it gives up). */
export interface UntilOptions {
  /** Milliseconds before it fails; default 15,000. */
  deadline?: number;
  /** Milliseconds between two checks; default 20. */
  every?: number;
  what?: string;
}

/**
 * Asks `check` until it answers something other than undefined, null or false, and returns that answer; fails
 * after `deadline` ms. It waits for a condition, never for a time: it returns as soon as the condition holds.
 */
export async function until<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: UntilOptions = {}): Promise<T> {
  const { deadline = 15_000, every = 20, what = 'the condition' } = options;
  const giveUpAt = Date.now() + deadline;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out after ${deadline} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** Lets every callback already queued run: promise reactions, then one turn of the event loop (setImmediate). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
