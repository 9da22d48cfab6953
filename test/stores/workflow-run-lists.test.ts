/** WorkflowRunStore.listByAccount: newest first, status filter, keyset pages, account scoping. */
import t from 'tap';
import { InvalidListCursor } from '../../src/ports/list-query.js';
import type { WorkflowRunRecord } from '../../src/domain/workflows.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

function run(id: string, accountId: string, createdAt: string): WorkflowRunRecord {
  return {
    id, accountId, status: 'running', workflow: { slug: 'wf', name: 'Workflow', steps: [] }, task: 't', metadata: {},
    conversationId: null, finalAnswer: null, error: null, checkpoint: null, createdAt, completedAt: null,
  };
}

for (const kind of durableKinds()) {
  t.test(`workflow run lists (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    const other = await stores.accounts.create(newAccount());
    // Two share a creation time, so the id breaks the tie and paging must not skip either.
    const times = ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z', '2026-01-01T00:00:04.000Z'];
    for (const [i, at] of times.entries()) await stores.workflowRuns.insert(run(`exec_w${i}`, account.id, at), 'owner', 60_000);
    await stores.workflowRuns.insert(run('exec_wother', other.id, '2026-01-01T00:00:05.000Z'), 'owner', 60_000);
    await stores.workflowRuns.transition('exec_w1', ['running'], 'failed', {});

    t.test('pages walk every run of the account once, newest first', async (t) => {
      const seen: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 10; guard++) {
        const page = await stores.workflowRuns.listByAccount(account.id, { status: null, limit: 2, after });
        seen.push(...page.items.map((r) => r.id));
        after = page.nextCursor;
        if (after === null) break;
      }
      t.same(seen, ['exec_w4', 'exec_w3', 'exec_w2', 'exec_w1', 'exec_w0']);
    });

    t.test('the status filter and account scoping apply', async (t) => {
      const failed = await stores.workflowRuns.listByAccount(account.id, { status: 'failed', limit: 10, after: null });
      t.same(failed.items.map((r) => r.id), ['exec_w1']);
      t.equal(failed.nextCursor, null);
      const others = await stores.workflowRuns.listByAccount(other.id, { status: null, limit: 10, after: null });
      t.same(others.items.map((r) => r.id), ['exec_wother']);
    });

    t.test('a cursor the store did not issue is refused', async (t) => {
      await t.rejects(stores.workflowRuns.listByAccount(account.id, { status: null, limit: 2, after: 'bm9wZQ' }), InvalidListCursor);
    });
  });
}
