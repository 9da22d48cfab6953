/**
 * Messages of the UsageActor (API-key activity, written in batches off the request path), and
 * the facade HTTP code uses so it never sees actors.
 */
import type { UsageEntry } from '../domain/usage.js';
import { ask } from './kit/ask.js';
import { dispatch, type Ref } from './kit/nact.js';
import type { ReplyRef } from './kit/protocol.js';
import type { TimerTick } from './kit/timers.js';

/** Answer to `usage.flush`: `ok` once everything recorded before the flush is written (or dropped). */
export interface UsageFlushed {
  readonly type: 'usage.flushed';
  readonly ok: boolean;
  /** Entries written since start. */
  readonly written: number;
  /** Entries dropped since start because the buffer was full (store down too long). */
  readonly dropped: number;
  /** Entries still waiting to be written. */
  readonly buffered: number;
  /** Set when `ok` is false: the store error that stopped the flush. */
  readonly error?: string;
}

/** What other code may send. */
export type UsageCommand =
  | { readonly type: 'usage.record'; readonly entry: UsageEntry }
  | { readonly type: 'usage.flush'; readonly replyTo: ReplyRef<UsageFlushed> };

/** What the actor sends itself (timers, store completions). */
export type UsageInternal =
  | { readonly type: 'usage.flushDue'; readonly timer: TimerTick }
  | { readonly type: 'usage.pruneDue'; readonly timer: TimerTick }
  | { readonly type: 'usage.written'; readonly writeId: number; readonly count: number }
  | { readonly type: 'usage.writeFailed'; readonly writeId: number; readonly error: unknown; readonly batch: readonly UsageEntry[] }
  | { readonly type: 'usage.pruned'; readonly removed: number }
  | { readonly type: 'usage.pruneFailed'; readonly error: unknown };

export type UsageMessage = UsageCommand | UsageInternal;

/** A flush did not complete: the store failed; entries stay buffered for the next attempt. */
export class UsageFlushFailed extends Error {
  readonly code = 'USAGE_FLUSH_FAILED';
  readonly retryable = true;
  readonly buffered: number;

  constructor(reason: string, buffered: number) {
    super(`usage flush failed (${buffered} entries still buffered): ${reason}`);
    this.name = 'UsageFlushFailed';
    this.buffered = buffered;
  }
}

export interface UsageRecorder {
  /** Queues one entry; never blocks, never throws. */
  record(entry: UsageEntry): void;
  /** Writes everything recorded so far; rejects with UsageFlushFailed or AskTimeout. */
  flush(timeoutMs: number): Promise<void>;
}

/** The facade over a UsageActor ref. */
export function createUsageRecorder(ref: Ref<UsageCommand>): UsageRecorder {
  return {
    record: (entry) => dispatch(ref, { type: 'usage.record', entry }),
    flush: async (timeoutMs) => {
      const result = await ask(ref, (replyTo) => ({ type: 'usage.flush', replyTo }), timeoutMs);
      if (!result.ok) throw new UsageFlushFailed(result.error ?? 'unknown error', result.buffered);
    },
  };
}
