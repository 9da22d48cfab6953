/**
 * Lets clients wait for an execution without polling (`?wait=` long poll, the SSE event stream).
 * Every transition is published on one coordination channel (Redis pub/sub across workers and
 * nodes, in-process when embedded); each worker subscribes once and wakes its local watchers of
 * that id, who then read the record through the usual store (ownership checks included).
 * A message only says "this id changed": the record itself is never sent over the channel.
 */
import type { Logger } from '../../support/log.js';
import type { Coordination } from '../../ports/coordination.js';
import type { ExecutionRecord } from '../../domain/executions.js';

export const STATUS_CHANNEL = 'executions.status';

/** `null`: no change, but answer now (the worker is stopping). */
export type StatusListener = (status: ExecutionRecord['status'] | null) => void;

export interface StatusWatch {
  /** Tells every worker's watchers of this execution that it changed. Never throws. */
  published(record: ExecutionRecord): void;
  /** Calls `listener` on each change of `executionId` until the returned function is called. */
  watch(executionId: string, listener: StatusListener): () => void;
  /** Wakes every watcher (as if changed) so waits answer now, e.g. on shutdown; then unsubscribes. */
  stop(): Promise<void>;
}

export async function startStatusWatch(coordination: Pick<Coordination, 'publish' | 'subscribe'>, logger: Logger): Promise<StatusWatch> {
  const watchers = new Map<string, Set<StatusListener>>();
  const notify = (executionId: string, status: ExecutionRecord['status'] | null): void => {
    const set = watchers.get(executionId);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(status);
      } catch (error) {
        logger.warn({ err: error, executionId }, 'execution status watcher failed');
      }
    }
  };
  const unsubscribe = await coordination.subscribe(STATUS_CHANNEL, (message) => {
    const separator = message.indexOf(' ');
    if (separator < 0) return;
    notify(message.slice(separator + 1), message.slice(0, separator) as ExecutionRecord['status']);
  });
  return {
    published(record) {
      coordination.publish(STATUS_CHANNEL, `${record.status} ${record.id}`).catch((error: unknown) => {
        // Watchers still answer at the end of their wait; nothing is lost but promptness.
        logger.warn({ err: error, executionId: record.id }, 'execution status not published');
      });
    },
    watch(executionId, listener) {
      let set = watchers.get(executionId);
      if (set === undefined) {
        set = new Set();
        watchers.set(executionId, set);
      }
      set.add(listener);
      return () => {
        const current = watchers.get(executionId);
        if (current === undefined) return;
        current.delete(listener);
        if (current.size === 0) watchers.delete(executionId);
      };
    },
    async stop() {
      for (const id of [...watchers.keys()]) notify(id, null);
      await unsubscribe();
    },
  };
}
