/** Time as actors see it; injected so tests can drive timers with a manual clock. */
export interface Clock {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Milliseconds since the epoch. */
  now(): number;
}

function isNodeTimeout(handle: unknown): handle is NodeJS.Timeout {
  return typeof handle === 'object' && handle !== null && 'hasRef' in handle && 'unref' in handle;
}

// Node caps delays at 2^31-1 ms and fires at once beyond it; clamp so long timers stay long.
const MAX_DELAY_MS = 2_147_483_647;

/** The process clock. */
export const realClock: Clock = {
  setTimeout: (callback, delayMs) => setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_DELAY_MS)),
  clearTimeout: (handle) => {
    if (isNodeTimeout(handle)) clearTimeout(handle);
  },
  now: () => Date.now(),
};
