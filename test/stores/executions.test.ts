/** ExecutionStore and IdempotencyStore against each available database. */
import t from 'tap';
import type { ExecutionRecord } from '../../src/domain/executions.js';
import { durableKinds, newAccount, openTestDurable } from '../helpers/stores.js';

function execution(id: string, accountId: string, overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    id,
    accountId,
    status: 'PENDING',
    query: 'summarise this',
    context: { a: 1 },
    mode: 'PARALLEL',
    aggregation: 'merge',
    customAggregator: null,
    dependencies: null,
    selectedAgents: [{ id: 'summarizer', name: 'Summarizer', vertical: 'language', confidence: 0.9, estimatedCostMicros: 20_000 }],
    timeoutMs: null,
    maxCostMicros: null,
    fees: { tier: 'DEVELOPER', feeBasisPoints: null },
    webhook: null,
    estimatedCostMicros: 30_000,
    estimatedDurationMs: 1200,
    progress: null,
    result: null,
    error: null,
    actualCostMicros: null,
    actualDurationMs: null,
    agentsUsed: null,
    createdAt: new Date().toISOString(),
    startedAt: null,
    completedAt: null,
    ...overrides,
  };
}

for (const kind of durableKinds()) {
  t.test(`executions (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());
    const other = await stores.accounts.create(newAccount());

    t.test('concurrent inserts are all durable, in one or a few batches', async (t) => {
      const ids = Array.from({ length: 50 }, (_, i) => `exec_batch_${kind}_${i}`);
      await Promise.all(ids.map((id) => stores.executions.insert(execution(id, account.id))));
      for (const id of ids) t.equal((await stores.executions.get(account.id, id))?.id, id);
    });

    t.test("another account's execution is not found", async (t) => {
      await stores.executions.insert(execution('exec_private', account.id));
      t.equal(await stores.executions.get(other.id, 'exec_private'), null);
      t.equal((await stores.executions.getById('exec_private'))?.accountId, account.id);
    });

    t.test('a transition applies only from the expected states', async (t) => {
      await stores.executions.insert(execution('exec_t', account.id));
      const running = await stores.executions.transition('exec_t', ['PENDING'], 'RUNNING', { startedAt: '2026-01-01T00:00:00.000Z' });
      t.equal(running?.status, 'RUNNING');
      t.equal(running?.startedAt, '2026-01-01T00:00:00.000Z');
      t.equal(running?.query, 'summarise this', 'the rest of the record is kept');
      const cancelled = await stores.executions.transition('exec_t', ['PENDING', 'RUNNING'], 'CANCELLED', { completedAt: 'x' });
      t.equal(cancelled?.status, 'CANCELLED');
      const late = await stores.executions.transition('exec_t', ['RUNNING'], 'COMPLETED', {});
      t.equal(late, null, 'a completion after the cancel loses');
      t.equal((await stores.executions.getById('exec_t'))?.status, 'CANCELLED');
    });

    t.test('progress is recorded while running and listLive shows live executions', async (t) => {
      await stores.executions.insert(execution('exec_p', account.id));
      await stores.executions.transition('exec_p', ['PENDING'], 'RUNNING', {});
      await Promise.all([
        stores.executions.updateProgress('exec_p', { completed: 1, total: 3, currentAgent: 'a' }),
        stores.executions.updateProgress('exec_p', { completed: 2, total: 3, currentAgent: 'b' }),
      ]);
      t.same((await stores.executions.getById('exec_p'))?.progress, { completed: 2, total: 3, currentAgent: 'b' });
      const live = await stores.executions.listLive(1000);
      t.ok(live.some((e) => e.id === 'exec_p' && e.status === 'RUNNING'));
      t.notOk(live.some((e) => e.id === 'exec_t'));
    });

    t.test('an idempotency key is claimed once, then replays its response', async (t) => {
      t.same(await stores.idempotency.claim(account.id, 'k1', 'h1', 60_000), { kind: 'claimed' });
      t.same(await stores.idempotency.claim(account.id, 'k1', 'h1', 60_000), { kind: 'in_progress' });
      t.same(await stores.idempotency.claim(account.id, 'k1', 'h2', 60_000), { kind: 'mismatch' });
      await stores.idempotency.complete(account.id, 'k1', 202, { executionId: 'exec_1' }, 60_000);
      t.same(await stores.idempotency.claim(account.id, 'k1', 'h1', 60_000), { kind: 'done', status: 202, body: { executionId: 'exec_1' } });
      t.same(await stores.idempotency.claim(other.id, 'k1', 'h1', 60_000), { kind: 'claimed' }, 'keys are per account');
    });

    t.test('a released or expired idempotency key can be claimed again', async (t) => {
      await stores.idempotency.claim(account.id, 'k2', 'h', 60_000);
      await stores.idempotency.release(account.id, 'k2');
      t.same(await stores.idempotency.claim(account.id, 'k2', 'h', 60_000), { kind: 'claimed' });
      await stores.idempotency.claim(account.id, 'k3', 'h', -1);
      t.same(await stores.idempotency.claim(account.id, 'k3', 'other', 60_000), { kind: 'claimed' }, 'expired rows are replaced');
    });

    t.test('an idempotency key is recorded with its execution; a second execution with the key is not', async (t) => {
      t.equal(await stores.executions.insert(execution('exec_k1', account.id), 'key-a'), null, 'recorded');
      const [again, same] = await Promise.all([
        stores.executions.insert(execution('exec_k2', account.id), 'key-a'),
        stores.executions.insert(execution('exec_k3', account.id), 'key-a'),
      ]);
      t.equal(again?.id, 'exec_k1', 'the existing execution answers');
      t.equal(same?.id, 'exec_k1');
      t.equal(await stores.executions.getById('exec_k2'), null, 'nothing else was recorded');
      t.equal((await stores.executions.getByIdempotencyKey(account.id, 'key-a'))?.id, 'exec_k1');
      t.equal(await stores.executions.getByIdempotencyKey(other.id, 'key-a'), null, 'keys are per account');
      t.equal(await stores.executions.insert(execution('exec_k4', other.id), 'key-a'), null);
      t.equal(await stores.executions.insert(execution('exec_k5', account.id)), null, 'no key: always recorded');
    });

    t.test('an unanswered claim lapses after its short TTL; a completed one is kept for its own TTL', async (t) => {
      await stores.idempotency.claim(account.id, 'k4', 'h', 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      t.same(await stores.idempotency.claim(account.id, 'k4', 'h', 60_000), { kind: 'claimed' }, 'a dead claimer frees the key');
      await stores.idempotency.claim(account.id, 'k5', 'h', 1);
      await stores.idempotency.complete(account.id, 'k5', 202, { id: 'x' }, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      t.same(await stores.idempotency.claim(account.id, 'k5', 'h', 60_000), { kind: 'done', status: 202, body: { id: 'x' } });
    });

    t.test('concurrent claims of one key have exactly one winner', async (t) => {
      const results = await Promise.all(Array.from({ length: 10 }, () => stores.idempotency.claim(account.id, 'race', 'h', 60_000)));
      t.equal(results.filter((r) => r.kind === 'claimed').length, 1);
    });
  });
}

for (const kind of durableKinds()) {
  t.test(`batched transitions (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);
    const account = await stores.accounts.create(newAccount());

    t.test('concurrent transitions of many executions each get their own answer', async (t) => {
      const ids = Array.from({ length: 30 }, (_, i) => `exec_bt_${i}`);
      await Promise.all(ids.map((id) => stores.executions.insert(execution(id, account.id))));
      const moved = await Promise.all(ids.map((id) => stores.executions.transition(id, ['PENDING'], 'RUNNING', { startedAt: id })));
      t.same(moved.map((r) => r?.startedAt), ids);
    });

    t.test('two racing transitions of one execution: exactly the first wins', async (t) => {
      await stores.executions.insert(execution('exec_race', account.id));
      await stores.executions.insert(execution('exec_busy', account.id));
      await stores.executions.transition('exec_race', ['PENDING'], 'RUNNING', {});
      // The first call occupies the writer, so the two racing ones share the next batch.
      const [, completed, cancelled] = await Promise.all([
        stores.executions.transition('exec_busy', ['PENDING'], 'RUNNING', {}),
        stores.executions.transition('exec_race', ['RUNNING'], 'COMPLETED', { agentsUsed: 1 }),
        stores.executions.transition('exec_race', ['PENDING', 'RUNNING'], 'CANCELLED', {}),
      ]);
      t.equal(completed?.status, 'COMPLETED');
      t.equal(cancelled, null);
      t.equal((await stores.executions.getById('exec_race'))?.status, 'COMPLETED');
    });
  });
}
