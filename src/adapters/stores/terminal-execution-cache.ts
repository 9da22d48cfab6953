/**
 * Status reads of finished executions from memory. A COMPLETED, FAILED or CANCELLED execution
 * never changes again, so once read it can be served without a database round trip; live ones
 * are always read from the store. Bounded LRU, per worker.
 */
import { LRUCache } from 'lru-cache';
import type { ExecutionRecord } from '../../domain/executions.js';
import type { ExecutionStore } from '../../ports/executions.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export function withTerminalExecutionCache<S extends Pick<ExecutionStore, 'get'>>(store: S, max = 10_000): S {
  const cache = new LRUCache<string, ExecutionRecord>({ max });
  return {
    ...store,
    async get(accountId: string, id: string): Promise<ExecutionRecord | null> {
      const cached = cache.get(id);
      // Keyed by id alone, so the account check must be repeated on every hit.
      if (cached !== undefined) return cached.accountId === accountId ? cached : null;
      const record = await store.get(accountId, id);
      if (record !== null && TERMINAL.has(record.status)) cache.set(id, record);
      return record;
    },
  };
}
