/**
 * Waiting for an execution to reach a state, by reading its status: the execution may run on
 * any worker (or node), and its record in the store is what every worker agrees on. Reads start
 * fast and back off, so a short run answers quickly and a long one costs few reads.
 */
const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

/** Reads until `settled` holds, `maxMs` passes or `signal` aborts; returns the last read. */
export async function waitFor<T>(read: () => Promise<T>, settled: (value: T) => boolean, maxMs: number, signal: AbortSignal): Promise<{ value: T; settled: boolean }> {
  const deadline = Date.now() + maxMs;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    const value = await read();
    if (settled(value)) return { value, settled: true };
    if (signal.aborted || Date.now() + delay > deadline) return { value, settled: false };
    await sleep(delay, signal);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
