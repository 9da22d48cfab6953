/**
 * UsageActor: takes API-key activity off the request path and writes it in batches
 * (`UsageStore.recordBatch`, one call per batch, one write in flight at a time), flushing every
 * `flushIntervalMs` or at `maxBatch` entries. A failed batch goes back to the front and is retried
 * on the next flush tick; the buffer keeps at most `maxBuffered` entries, dropping (and counting)
 * the oldest, so a long store outage costs old entries, never memory. Also prunes old request-log
 * rows every `pruneIntervalMs`. Entries still buffered when the actor stops are lost: graceful
 * shutdown calls `flush` first.
 */
import type { UsageStore } from '../ports/usage.js';
import { reply } from './kit/ask.js';
import { defineActor, type ActorDefinition, type ActorKit } from './kit/define.js';
import type { KitLogger } from './kit/logger.js';
import { dispatch, type Ref } from './kit/nact.js';
import type { ReplyRef } from './kit/protocol.js';
import type { ActorRuntime } from './root-supervisor.js';
import { EntryQueue } from './usage-queue.js';
import { createUsageRecorder, type UsageCommand, type UsageFlushed, type UsageMessage, type UsageRecorder } from './usage-protocol.js';

export interface UsageActorOptions {
  readonly store: Pick<UsageStore, 'recordBatch' | 'prune'>;
  readonly logger: KitLogger;
  /** Default 250. */
  readonly flushIntervalMs?: number;
  /** Default 500. */
  readonly maxBatch?: number;
  /** Default 50,000; at least `maxBatch`. */
  readonly maxBuffered?: number;
  /** Default one hour. */
  readonly pruneIntervalMs?: number;
}

interface Waiter {
  /** Answered once `settled` reaches this (every entry recorded before the flush). */
  readonly target: number;
  readonly replyTo: ReplyRef<UsageFlushed>;
}

/** Mutable on purpose: `usage.record` is on every request's path and allocates nothing else. */
export interface UsageState {
  readonly queue: EntryQueue;
  /** Size and id of the write in flight (0 and -1 when none). */
  inFlight: number;
  inFlightId: number;
  /** After a failed write, size-triggered writes wait for the next flush tick. */
  backingOff: boolean;
  recorded: number;
  /** Written plus dropped; entries settle in recording order. */
  settled: number;
  written: number;
  dropped: number;
  droppedInOutage: number;
  failureStreak: number;
  waiters: Waiter[];
}

// Write ids are unique across restarts: a completion from before a restart must not pass for
// the current write.
let lastWriteId = 0;

const FLUSH = 'flush';
const PRUNE = 'prune';
// Log the first failure of an outage and then every Nth, not every tick.
const LOG_EVERY_NTH_FAILURE = 100;

/** The UsageActor definition, for `runtime.spawnChild(usageActor(options), { name: 'usage' })`. */
export function usageActor(options: UsageActorOptions): ActorDefinition<UsageState, UsageMessage> {
  const { store, logger } = options;
  const flushIntervalMs = options.flushIntervalMs ?? 250;
  const maxBatch = options.maxBatch ?? 500;
  const maxBuffered = options.maxBuffered ?? 50_000;
  const pruneIntervalMs = options.pruneIntervalMs ?? 3_600_000;
  if (!(flushIntervalMs > 0) || !(pruneIntervalMs > 0)) throw new RangeError('usage intervals must be > 0');
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError('maxBatch must be an integer >= 1');
  if (!Number.isInteger(maxBuffered) || maxBuffered < maxBatch) throw new RangeError('maxBuffered must be an integer >= maxBatch');

  type Kit = ActorKit<UsageMessage>;

  const flushed = (state: UsageState, ok: boolean, error?: string): UsageFlushed => ({
    type: 'usage.flushed',
    ok,
    written: state.written,
    dropped: state.dropped,
    buffered: state.queue.length + state.inFlight,
    ...(error === undefined ? {} : { error }),
  });

  const armFlush = (kit: Kit): void => {
    if (!kit.timers.isActive(FLUSH)) kit.timers.start(FLUSH, flushIntervalMs, (timer) => ({ type: 'usage.flushDue', timer }));
  };

  const write = (state: UsageState, kit: Kit): void => {
    kit.timers.cancel(FLUSH);
    const batch = state.queue.take(maxBatch);
    const writeId = ++lastWriteId;
    state.inFlight = batch.length;
    state.inFlightId = writeId;
    const self = kit.self;
    void (async () => {
      try {
        await store.recordBatch(batch);
        dispatch(self, { type: 'usage.written', writeId, count: batch.length });
      } catch (error) {
        // The batch rides along so nothing is lost: it goes back to the front of the queue.
        dispatch(self, { type: 'usage.writeFailed', writeId, error, batch });
      }
    })();
  };

  const enforceBound = (state: UsageState, kit: Kit): void => {
    const over = state.queue.length + state.inFlight - maxBuffered;
    if (over <= 0) return;
    const dropped = state.queue.drop(over);
    if (state.droppedInOutage === 0) {
      logger.warn({ actor: kit.path, maxBuffered }, 'usage buffer full; dropping the oldest entries until the store recovers');
    }
    state.dropped += dropped;
    state.droppedInOutage += dropped;
    state.settled += dropped;
  };

  const answerWaiters = (state: UsageState): void => {
    if (state.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of state.waiters) {
      if (waiter.target <= state.settled) reply(waiter.replyTo, flushed(state, true));
      else still.push(waiter);
    }
    state.waiters = still;
  };

  const prune = (kit: Kit): void => {
    const self = kit.self;
    const now = new Date(kit.clock.now());
    void (async () => {
      try {
        dispatch(self, { type: 'usage.pruned', removed: await store.prune(now) });
      } catch (error) {
        dispatch(self, { type: 'usage.pruneFailed', error });
      }
    })();
  };

  return defineActor<UsageState, UsageMessage>({
    init: (kit) => {
      kit.timers.start(PRUNE, pruneIntervalMs, (timer) => ({ type: 'usage.pruneDue', timer }));
      return {
        queue: new EntryQueue(),
        inFlight: 0,
        inFlightId: -1,
        backingOff: false,
        recorded: 0,
        settled: 0,
        written: 0,
        dropped: 0,
        droppedInOutage: 0,
        failureStreak: 0,
        waiters: [],
      };
    },

    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'usage.record': {
          state.queue.push(msg.entry);
          state.recorded += 1;
          enforceBound(state, kit);
          if (state.inFlight === 0 && !state.backingOff && state.queue.length >= maxBatch) write(state, kit);
          else armFlush(kit);
          return state;
        }

        case 'usage.flush': {
          if (state.inFlight === 0 && state.queue.length === 0) {
            reply(msg.replyTo, flushed(state, true));
            return state;
          }
          state.waiters.push({ target: state.recorded, replyTo: msg.replyTo });
          if (state.inFlight === 0) write(state, kit);
          return state;
        }

        case 'usage.flushDue': {
          state.backingOff = false;
          if (state.inFlight === 0 && state.queue.length > 0) write(state, kit);
          return state;
        }

        case 'usage.written': {
          // A write started before a restart: its entries are stored, and this state never counted them.
          if (msg.writeId !== state.inFlightId) return state;
          state.inFlight = 0;
          state.inFlightId = -1;
          state.written += msg.count;
          state.settled += msg.count;
          if (state.failureStreak > 0 || state.droppedInOutage > 0) {
            logger.info(
              { actor: kit.path, failedAttempts: state.failureStreak, dropped: state.droppedInOutage },
              'usage store writes recovered',
            );
          }
          state.failureStreak = 0;
          state.droppedInOutage = 0;
          state.backingOff = false;
          answerWaiters(state);
          if (state.queue.length >= maxBatch || (state.waiters.length > 0 && state.queue.length > 0)) write(state, kit);
          else if (state.queue.length > 0) armFlush(kit);
          return state;
        }

        case 'usage.writeFailed': {
          if (msg.writeId !== state.inFlightId) {
            // From before a restart: keep its entries (a restart must not lose them), nothing else.
            state.queue.prepend(msg.batch);
            state.recorded += msg.batch.length;
            enforceBound(state, kit);
            armFlush(kit);
            return state;
          }
          state.inFlight = 0;
          state.inFlightId = -1;
          state.queue.prepend(msg.batch);
          state.failureStreak += 1;
          state.backingOff = true;
          enforceBound(state, kit);
          if (state.failureStreak % LOG_EVERY_NTH_FAILURE === 1) {
            logger.warn(
              { actor: kit.path, err: msg.error, buffered: state.queue.length, failedAttempts: state.failureStreak },
              'usage batch write failed; will retry on the next flush',
            );
          }
          const reason = msg.error instanceof Error ? msg.error.message : String(msg.error);
          for (const waiter of state.waiters) reply(waiter.replyTo, flushed(state, false, reason));
          state.waiters = [];
          armFlush(kit);
          return state;
        }

        case 'usage.pruneDue': {
          kit.timers.start(PRUNE, pruneIntervalMs, (timer) => ({ type: 'usage.pruneDue', timer }));
          prune(kit);
          return state;
        }

        case 'usage.pruned': {
          if (msg.removed > 0) logger.info({ actor: kit.path, removed: msg.removed }, 'pruned usage request log');
          return state;
        }

        case 'usage.pruneFailed': {
          logger.warn({ actor: kit.path, err: msg.error }, 'usage prune failed; will retry at the next interval');
          return state;
        }
      }
    },
  });
}

/** Spawns the UsageActor under `runtime`'s root and returns its ref and the HTTP-facing facade. */
export function spawnUsageActor(
  runtime: Pick<ActorRuntime, 'spawnChild'>,
  options: UsageActorOptions,
  name = 'usage',
): { readonly ref: Ref<UsageCommand>; readonly recorder: UsageRecorder } {
  const ref = runtime.spawnChild(usageActor(options), { name });
  return { ref, recorder: createUsageRecorder(ref) };
}
