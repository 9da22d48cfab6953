/**
 * A clock that only moves when told to, for tests of anything that takes a `Clock`.
 * Timers fire synchronously inside `advance`, in due-time order (ties in start order).
 */
import type { Clock } from './clock.js';

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void;
  /** Timers started and neither fired nor cleared. */
  pending(): number;
}

interface Pending {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void;
}

/** A manual clock starting at `startMs` (default 2024-01-01T00:00:00Z). */
export function createManualClock(startMs = Date.UTC(2024, 0, 1)): ManualClock {
  let nowMs = startMs;
  let nextId = 1;
  const timers = new Map<number, Pending>();

  const nextDue = (limitMs: number): Pending | undefined => {
    let best: Pending | undefined;
    for (const timer of timers.values()) {
      if (timer.dueMs > limitMs) continue;
      if (!best || timer.dueMs < best.dueMs || (timer.dueMs === best.dueMs && timer.id < best.id)) best = timer;
    }
    return best;
  };

  return {
    now: () => nowMs,
    setTimeout: (callback, delayMs) => {
      const id = nextId++;
      timers.set(id, { id, dueMs: nowMs + Math.max(0, delayMs), callback });
      return id;
    },
    clearTimeout: (handle) => {
      if (typeof handle === 'number') timers.delete(handle);
    },
    advance: (ms) => {
      const targetMs = nowMs + ms;
      for (let timer = nextDue(targetMs); timer; timer = nextDue(targetMs)) {
        timers.delete(timer.id);
        nowMs = timer.dueMs;
        timer.callback();
      }
      nowMs = targetMs;
    },
    pending: () => timers.size,
  };
}
