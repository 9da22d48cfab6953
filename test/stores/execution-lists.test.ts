/**
 * The newest-first lists (ExecutionStore and WorkflowRunStore listByAccount, one keyset query):
 * newest first, status filter, keyset pages, account scoping.
 */
import t from 'tap';
import { InvalidListCursor, type NewestFirstPage, type NewestFirstQuery } from '../../src/ports/list-query.js';
import { type ExecutionRecord } from '../../src/domain/executions.js';
import type { WorkflowRunRecord } from '../../src/domain/workflows.js';
import type { DurableStores } from '../../src/ports/durable.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

function execution(id: string, accountId: string, createdAt: string, status: ExecutionRecord['status'] = 'PENDING'): ExecutionRecord {
  return {
    id, accountId, status, query: 'q', context: {}, mode: 'PARALLEL', aggregation: 'merge', customAggregator: null, dependencies: null,
    selectedAgents: [], timeoutMs: null, maxCostMicros: null, fees: { tier: 'DEVELOPER', feeBasisPoints: null }, webhook: null,
    estimatedCostMicros: 0, estimatedDurationMs: 0, progress: null, result: null, error: null, actualCostMicros: null,
    actualDurationMs: null, agentsUsed: null, createdAt, startedAt: null, completedAt: null,
  };
}

function run(id: string, accountId: string, createdAt: string): WorkflowRunRecord {
  return {
    id, accountId, status: 'running', workflow: { slug: 'wf', name: 'Workflow', steps: [] }, task: 't', metadata: {},
    conversationId: null, finalAnswer: null, error: null, checkpoint: null, createdAt, completedAt: null,
  };
}

/** One list under test: how to add an item, fail one, and read a page. */
interface List {
  readonly name: string;
  readonly failed: string;
  insert(stores: DurableStores, id: string, accountId: string, createdAt: string): Promise<unknown>;
  fail(stores: DurableStores, id: string): Promise<unknown>;
  list(stores: DurableStores, accountId: string, query: NewestFirstQuery<string>): Promise<NewestFirstPage<{ id: string }>>;
}

const LISTS: readonly List[] = [
  {
    name: 'execution',
    failed: 'FAILED',
    insert: (stores, id, accountId, at) => stores.executions.insert(execution(id, accountId, at)),
    fail: (stores, id) => stores.executions.transition(id, ['PENDING'], 'FAILED', {}),
    list: (stores, accountId, query) => stores.executions.listByAccount(accountId, query as NewestFirstQuery<ExecutionRecord['status']>),
  },
  {
    name: 'workflow run',
    failed: 'failed',
    insert: (stores, id, accountId, at) => stores.workflowRuns.insert(run(id, accountId, at), 'owner', 60_000),
    fail: (stores, id) => stores.workflowRuns.transition(id, ['running'], 'failed', {}),
    list: (stores, accountId, query) => stores.workflowRuns.listByAccount(accountId, query as NewestFirstQuery<WorkflowRunRecord['status']>),
  },
];

for (const kind of durableKinds()) {
  for (const list of LISTS) {
    t.test(`${list.name} lists (${kind})`, async (t) => {
      const stores = await openTestDurable(t, kind);
      const account = await stores.accounts.create(newAccount());
      const other = await stores.accounts.create(newAccount());
      // Two share a creation time, so the id breaks the tie and paging must not skip either.
      const times = ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z', '2026-01-01T00:00:04.000Z'];
      await Promise.all(times.map((at, i) => list.insert(stores, `exec_l${i}`, account.id, at)));
      await list.insert(stores, 'exec_other', other.id, '2026-01-01T00:00:05.000Z');
      await list.fail(stores, 'exec_l1');

      t.test('pages walk every item of the account once, newest first', async (t) => {
        const seen: string[] = [];
        let after: string | null = null;
        for (let guard = 0; guard < 10; guard++) {
          const page: NewestFirstPage<{ id: string }> = await list.list(stores, account.id, { status: null, limit: 2, after });
          seen.push(...page.items.map((r) => r.id));
          after = page.nextCursor;
          if (after === null) break;
        }
        t.same(seen, ['exec_l4', 'exec_l3', 'exec_l2', 'exec_l1', 'exec_l0']);
      });

      t.test('the status filter and account scoping apply', async (t) => {
        const failed = await list.list(stores, account.id, { status: list.failed, limit: 10, after: null });
        t.same(failed.items.map((r) => r.id), ['exec_l1']);
        t.equal(failed.nextCursor, null);
        const others = await list.list(stores, other.id, { status: null, limit: 10, after: null });
        t.same(others.items.map((r) => r.id), ['exec_other']);
      });

      t.test('a cursor the store did not issue is refused', async (t) => {
        await t.rejects(list.list(stores, account.id, { status: null, limit: 2, after: 'bm9wZQ' }), InvalidListCursor);
      });
    });
  }
}
