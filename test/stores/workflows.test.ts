/** Workflow stores on every durable kind: visibility of definitions, conditional decisions, leases. */
import t from 'tap';
import type { WorkflowRunRecord } from '../../src/domain/workflows.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

const definition = (slug: string, name = 'W') => ({ slug, name, steps: [{ id: 's', agent: 'a' }] });

function run(id: string, accountId: string): WorkflowRunRecord {
  return {
    id,
    accountId,
    status: 'running',
    workflow: definition('w'),
    task: 't',
    metadata: {},
    conversationId: null,
    finalAnswer: null,
    error: null,
    checkpoint: null,
    createdAt: new Date().toISOString(),
    completedAt: null,
  };
}

for (const kind of durableKinds()) {
  t.test(`${kind}: an account sees its own definition before a global one of the same slug`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    t.ok(await stores.workflows.create(null, definition('shared', 'Global')));
    t.ok(await stores.workflows.create(account.id, definition('shared', 'Own')));
    t.equal(await stores.workflows.create(account.id, definition('shared')), null, 'a duplicate in one scope is refused');
    t.equal((await stores.workflows.getVisible(account.id, 'shared'))?.definition.name, 'Own');
    t.same((await stores.workflows.listVisible(account.id)).map((r) => r.definition.name), ['Own']);
    t.same((await stores.workflows.listVisible(null)).map((r) => r.definition.name), ['Global']);
    t.ok(await stores.workflows.delete(account.id, 'shared'));
    t.equal((await stores.workflows.getVisible(account.id, 'shared'))?.definition.name, 'Global');
  });

  t.test(`${kind}: of two decisions on one approval only the first wins`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    const id = `exec_${Math.random().toString(16).slice(2)}`;
    await stores.workflowRuns.insert(run(id, account.id), 'w1', 30_000);
    const approval = await stores.approvals.create({
      id: `apr_${id}`,
      executionId: id,
      accountId: account.id,
      workflowSlug: 'w',
      toolCall: { id: 'c', name: 't', input: {} },
      requestedAt: new Date(),
      expiresAt: new Date(Date.now() + 1_000),
    });
    const [a, b] = await Promise.all([
      stores.approvals.decide(approval.id, 'approved', 'yes', new Date()),
      stores.approvals.decide(approval.id, 'expired', null, new Date()),
    ]);
    t.equal([a, b].filter((x) => x !== null).length, 1);
    t.equal(await stores.approvals.get('acct_other', approval.id), null, 'another account does not see it');
    t.equal((await stores.approvals.list(account.id, 'pending', 10)).length, 0);
  });

  t.test(`${kind}: a run is claimed by another owner only once its lease lapsed or was released`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    const id = `exec_${Math.random().toString(16).slice(2)}`;
    await stores.workflowRuns.insert(run(id, account.id), 'w1', 60_000);
    t.same(await stores.workflowRuns.claim('w2', 30_000, 10, false), [], 'the lease holds');
    await stores.workflowRuns.saveCheckpoint(id, {
      stepIndex: 0, rounds: 1, previousAnswer: null, history: [], toolResults: [], pendingCalls: [], roundCalls: [], approvalId: 'apr_x', lastSeq: 3,
    });
    await stores.workflowRuns.releasePaused('w1');
    const claimed = await stores.workflowRuns.claim('w2', 30_000, 10, false);
    t.same(claimed.map((r) => r.id), [id]);
    t.equal(claimed[0]!.checkpoint?.lastSeq, 3);
    t.same(await stores.workflowRuns.claim('w3', 30_000, 10, false), [], 'the new owner holds it now');
    t.ok(await stores.workflowRuns.transition(id, ['running'], 'completed', { finalAnswer: 'x' }));
    t.equal(await stores.workflowRuns.transition(id, ['running'], 'cancelled', {}), null, 'a finished run stays finished');
  });
}
