/**
 * Keyed timers for one actor (Akka's TimerScheduler): one timer per key, a new `start` replaces
 * the old one, and every firing carries a generation so a firing that was already queued in the
 * mailbox when its timer was replaced or cancelled is recognised as stale and ignored.
 */
import { realClock, type Clock } from './clock.js';

/** Proof of one firing; put it in the timer's message (as `timer`) and check it with `accept`. */
export interface TimerTick {
  readonly key: string;
  readonly generation: number;
}

export interface KeyedTimers<Msg> {
  /** Sends `message(tick)` after `delayMs`, replacing any timer with this key. */
  start(key: string, delayMs: number, message: (tick: TimerTick) => Msg): void;
  /** Cancels the timer with this key; a firing of it still in the mailbox becomes stale. */
  cancel(key: string): void;
  /** Cancels every timer; called when the actor stops or restarts. */
  cancelAll(): void;
  /** True while the key's timer is pending or fired but not yet accepted. */
  isActive(key: string): boolean;
  /** True exactly once for the current firing of its key (then the key is free); false if stale. */
  accept(tick: TimerTick): boolean;
}

// Generations are unique across all timer sets, so a tick from an actor's previous incarnation
// (before a restart) can never match a timer of the new one.
let lastGeneration = 0;

interface Entry {
  readonly generation: number;
  handle: unknown;
}

/** Timers that deliver by calling `send` (normally a dispatch to the actor itself). */
export function createKeyedTimers<Msg>(send: (msg: Msg) => void, clock: Clock = realClock): KeyedTimers<Msg> {
  const entries = new Map<string, Entry>();

  const clear = (entry: Entry | undefined): void => {
    if (entry && entry.handle !== undefined) clock.clearTimeout(entry.handle);
  };

  return {
    start(key, delayMs, message) {
      clear(entries.get(key));
      const tick: TimerTick = { key, generation: ++lastGeneration };
      const entry: Entry = { generation: tick.generation, handle: undefined };
      entries.set(key, entry);
      entry.handle = clock.setTimeout(() => {
        entry.handle = undefined;
        if (entries.get(key) === entry) send(message(tick));
      }, delayMs);
    },
    cancel(key) {
      clear(entries.get(key));
      entries.delete(key);
    },
    cancelAll() {
      for (const entry of entries.values()) clear(entry);
      entries.clear();
    },
    isActive(key) {
      return entries.has(key);
    },
    accept(tick) {
      const entry = entries.get(tick.key);
      if (!entry || entry.generation !== tick.generation) return false;
      entries.delete(tick.key);
      return true;
    },
  };
}

/** True if `value` looks like a tick (the define helper filters stale timer messages with it). */
export function isTimerTick(value: unknown): value is TimerTick {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>).key === 'string' &&
    typeof (value as Record<string, unknown>).generation === 'number'
  );
}
