/**
 * Work between two give-ways of a load on the serving thread: a request that arrives meanwhile waits at most
 * about this long (plus one step) for it.
 */
export const SLICE_MS = 4;

/**
 * Runs `steps` in slices of about `sliceMs` of work, giving way (setImmediate) between slices; null when `stop()`
 * turned true.
 */
export async function inSlices<T>(steps: Generator<void, T>, stop: () => boolean, sliceMs: number): Promise<T | null> {
  let sliceStarted = performance.now();
  for (;;) {
    if (performance.now() - sliceStarted >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
    if (stop()) return null;
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
