/** ExecutionStore.listByAccount: newest first, status filter, keyset pages, account scoping. */
import t from 'tap';
import { InvalidListCursor } from '../../src/ports/list-query.js';
import { type ExecutionRecord } from '../../src/domain/executions.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

function execution(id: string, accountId: string, createdAt: string, status: ExecutionRecord['status'] = 'PENDING'): ExecutionRecord {
  return {
    id, accountId, status, query: 'q', context: {}, mode: 'PARALLEL', aggregation: 'merge', customAggregator: null, dependencies: null,
    selectedAgents: [], timeoutMs: null, maxCostMicros: null, fees: { tier: 'DEVELOPER', feeBasisPoints: null }, webhook: null,
    estimatedCostMicros: 0, estimatedDurationMs: 0, progress: null, result: null, error: null, actualCostMicros: null,
    actualDurationMs: null, agentsUsed: null, createdAt, startedAt: null, completedAt: null,
  };
}

for (const kind of durableKinds()) {
  t.test(`execution lists (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    const other = await stores.accounts.create(newAccount());
    // Two share a creation time, so the id breaks the tie and paging must not skip either.
    const times = ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z', '2026-01-01T00:00:04.000Z'];
    await Promise.all(times.map((at, i) => stores.executions.insert(execution(`exec_l${i}`, account.id, at))));
    await stores.executions.insert(execution('exec_other', other.id, '2026-01-01T00:00:05.000Z'));
    await stores.executions.transition('exec_l1', ['PENDING'], 'FAILED', {});

    t.test('pages walk every execution of the account once, newest first', async (t) => {
      const seen: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 10; guard++) {
        const page = await stores.executions.listByAccount(account.id, { status: null, limit: 2, after });
        seen.push(...page.items.map((r) => r.id));
        after = page.nextCursor;
        if (after === null) break;
      }
      t.same(seen, ['exec_l4', 'exec_l3', 'exec_l2', 'exec_l1', 'exec_l0']);
    });

    t.test('the status filter and account scoping apply', async (t) => {
      const failed = await stores.executions.listByAccount(account.id, { status: 'FAILED', limit: 10, after: null });
      t.same(failed.items.map((r) => r.id), ['exec_l1']);
      t.equal(failed.nextCursor, null);
      const others = await stores.executions.listByAccount(other.id, { status: null, limit: 10, after: null });
      t.same(others.items.map((r) => r.id), ['exec_other']);
    });

    t.test('a cursor the store did not issue is refused', async (t) => {
      await t.rejects(stores.executions.listByAccount(account.id, { status: null, limit: 2, after: 'bm9wZQ' }), InvalidListCursor);
    });
  });
}
