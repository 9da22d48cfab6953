/**
 * Messages of the ConcurrencyQueueActor (one per worker). Orchestration and workflow code never
 * send them: they use the `Concurrency` facade (src/ports/limits.ts, src/services/limits/concurrency.ts).
 */
import type { TimerTick } from './kit/timers.js';

export type ConcurrencyQueueMessage =
  | { readonly type: 'concurrency.release'; readonly accountId: string; readonly holderId: string }
  | { readonly type: 'concurrency.promoted'; readonly accountId: string; readonly holderIds: readonly string[]; readonly attempt: number }
  /** No starter knew the holder yet (its record may still be committing): ask again later. */
  | { readonly type: 'concurrency.unclaimed'; readonly accountId: string; readonly holderId: string; readonly attempt: number }
  | { readonly type: 'concurrency.retry'; readonly accountId: string; readonly holderId: string; readonly attempt: number; readonly timer: TimerTick }
  | { readonly type: 'concurrency.scan'; readonly timer: TimerTick }
  | { readonly type: 'concurrency.scanned' };
