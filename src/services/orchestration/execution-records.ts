/**
 * Execution records served from memory (issue: accepted must mean completed, at the rate it
 * accepts). Every status read of an execution used to be a SQL round trip: a `?wait=` long poll
 * reads twice, a poller once per poll, an event stream once per transition.
 *
 * - A finished execution (COMPLETED, FAILED, CANCELLED) never changes again: once this worker
 *   wrote or read it, it is served from here until evicted.
 * - A live one (PENDING, RUNNING) is served from here only while its owner actor runs on this
 *   worker: every change of a live execution is written by its owner, through `tracked(store)`,
 *   which keeps the row the store returned. Two writers elsewhere can change it too (a cancel
 *   whose owner did not answer in time, recovery of an owner whose lease lapsed); both publish
 *   the transition on the status channel, and a published status that differs from ours drops
 *   the entry, so the next read goes to the store.
 * - Anything else (another worker's execution, a queued one) is read from the store.
 *
 * Bounded (LRU); an evicted entry only costs the next read a round trip.
 */
import { LRUCache } from 'lru-cache';
import { isTerminalExecution, type ExecutionRecord } from '../../domain/executions.js';
import type { Coordination } from '../../ports/coordination.js';
import type { ExecutionStore } from '../../ports/executions.js';
import { STATUS_CHANNEL } from './status-watch.js';

const DEFAULT_MAX_ENTRIES = 50_000;

interface Entry {
  record: ExecutionRecord;
  /** The owner actor runs here, so every change of this live record passes through this worker. */
  owned: boolean;
}

export interface ExecutionRecords {
  /** `store`, with every write it makes kept here and reads answered from here when they may be. */
  tracked<S extends ExecutionStore>(store: S): S;
  /** Its owner actor on this worker stopped (or never started here): stop serving it while live. */
  released(executionId: string): void;
  stop(): Promise<void>;
}

export interface ExecutionRecordsOptions {
  readonly maxEntries?: number;
}

export async function startExecutionRecords(
  coordination: Pick<Coordination, 'subscribe'>,
  options: ExecutionRecordsOptions = {},
): Promise<ExecutionRecords> {
  const entries = new LRUCache<string, Entry>({ max: options.maxEntries ?? DEFAULT_MAX_ENTRIES });

  const unsubscribe = await coordination.subscribe(STATUS_CHANNEL, (message) => {
    const separator = message.indexOf(' ');
    if (separator < 0) return;
    const id = message.slice(separator + 1);
    const entry = entries.peek(id);
    // Our own transitions come back with the status we hold; anything else was written elsewhere.
    if (entry !== undefined && entry.record.status !== message.slice(0, separator)) entries.delete(id);
  });

  function keep(record: ExecutionRecord, owned: boolean): void {
    entries.set(record.id, { record, owned: owned && !isTerminalExecution(record.status) });
  }

  /** The entry when it may answer a read: finished, or live and owned here. */
  function servable(id: string): ExecutionRecord | undefined {
    const entry = entries.get(id);
    if (entry === undefined) return undefined;
    return isTerminalExecution(entry.record.status) || entry.owned ? entry.record : undefined;
  }

  return {
    tracked(store) {
      return {
        ...store,
        async insert(record, idempotencyKey) {
          const existing = await store.insert(record, idempotencyKey);
          // null: this record was recorded as given. Owned until `released` says it did not start here.
          if (existing === null) keep(record, true);
          return existing;
        },
        async get(accountId, id) {
          const held = servable(id);
          // Keyed by id alone, so the account check is repeated on every hit.
          if (held !== undefined) return held.accountId === accountId ? held : null;
          const record = await store.get(accountId, id);
          if (record !== null && isTerminalExecution(record.status)) keep(record, false);
          return record;
        },
        async getById(id) {
          const held = servable(id);
          if (held !== undefined) return held;
          return store.getById(id);
        },
        async transition(id, from, status, patch) {
          const updated = await store.transition(id, from, status, patch);
          if (updated !== null) keep(updated, true);
          // null: another writer moved it first; what we hold may be stale.
          else entries.delete(id);
          return updated;
        },
        async updateProgress(id, progress) {
          await store.updateProgress(id, progress);
          const entry = entries.peek(id);
          // The store applies progress to RUNNING rows only; so does this copy.
          if (entry !== undefined && entry.record.status === 'RUNNING') entry.record = { ...entry.record, progress };
        },
      };
    },
    released(executionId) {
      const entry = entries.peek(executionId);
      if (entry !== undefined && !isTerminalExecution(entry.record.status)) entries.delete(executionId);
    },
    stop: unsubscribe,
  };
}
