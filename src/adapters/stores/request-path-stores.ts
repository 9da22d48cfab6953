/**
 * The stores as request handlers see them: every call a request waits on is bounded by the store
 * deadline (src/ports/deadline.ts), so an unreachable Postgres or Redis answers 503 promptly.
 *
 * Bounded: reads, and writes whose late landing after a 503 leaves nothing stuck (an execution
 * row is closed by recovery, an idempotency claim lapses, an unseen key or account is inert).
 * Not bounded: writes followed by a broadcast the caller must send (key deactivation, agent
 * changes, approval decisions), a workflow run's insert (a late run would be owned and renewed
 * by this worker without running), subscriptions (a late one would never be unsubscribed), and
 * `broadcastAndAwait`, which has its own timeout. Background work uses the unbounded stores.
 *
 * Only stores across a network are bounded: embedded PGlite and in-process coordination cannot
 * be unreachable while the worker runs, so a deadline there would only turn load into 503s.
 */
import { boundPort } from '../../ports/deadline.js';
import type { Coordination } from '../../ports/coordination.js';
import type { DurableStores } from '../../ports/durable.js';

export interface RequestPathStores {
  readonly durable: DurableStores;
  readonly coordination: Coordination;
}

export interface StoreDeadlines {
  /** Deadline of Postgres calls; null: not bounded (embedded PGlite). */
  readonly durableMs: number | null;
  /** Deadline of Redis calls; null: not bounded (in-process coordination). */
  readonly coordinationMs: number | null;
}

export function requestPathStores(stores: RequestPathStores, deadlines: StoreDeadlines): RequestPathStores {
  return {
    durable: deadlines.durableMs === null ? stores.durable : boundDurable(stores.durable, deadlines.durableMs),
    coordination: deadlines.coordinationMs === null ? stores.coordination : boundCoordination(stores.coordination, deadlines.coordinationMs),
  };
}

function boundDurable(durable: DurableStores, deadlineMs: number): DurableStores {
  return {
    accounts: boundPort(durable.accounts, 'accounts', ['get', 'create'], deadlineMs),
    apiKeys: boundPort(durable.apiKeys, 'apiKeys', ['findByHash', 'listByAccount', 'get', 'create'], deadlineMs),
    usage: boundPort(durable.usage, 'usage', ['activity'], deadlineMs),
    webhooks: boundPort(durable.webhooks, 'webhooks', ['listByExecution'], deadlineMs),
    agents: boundPort(durable.agents, 'agents', ['getVisible', 'getOwned', 'listVisible', 'listAll'], deadlineMs),
    executions: boundPort(durable.executions, 'executions', ['insert', 'getByIdempotencyKey', 'get', 'getById', 'listByAccount', 'transition'], deadlineMs),
    idempotency: boundPort(durable.idempotency, 'idempotency', ['claim', 'complete', 'release'], deadlineMs),
    workflows: boundPort(durable.workflows, 'workflows', ['getOwned', 'getVisible', 'listVisible'], deadlineMs),
    workflowRuns: boundPort(durable.workflowRuns, 'workflowRuns', ['get', 'getById', 'listByAccount'], deadlineMs),
    approvals: boundPort(durable.approvals, 'approvals', ['get', 'getById', 'list'], deadlineMs),
    ping: boundPort(durable, 'durable', ['ping'], deadlineMs).ping,
    close: () => durable.close(),
  };
}

function boundCoordination(coordination: Coordination, deadlineMs: number): Coordination {
  return boundPort(coordination, 'coordination', ['publish', 'rateLimit', 'acquireSlot', 'slotState', 'readEvents', 'ping'], deadlineMs);
}
