/**
 * Many executions finishing at once on real Postgres, as several workers see them: each worker's
 * progress updates and status transitions are group-committed into multi-row UPDATEs over the
 * same rows in different orders. They must not deadlock (40P01), and no transition may be lost.
 * Runs only with DATABASE_URL set.
 */
import t from 'tap';
import { sqlExecutionStore } from '../../src/adapters/stores/sql/executions.js';
import { MEMORY_DATA_DIR, openDurableStores, openSql, type SqlHandle } from '../../src/adapters/stores/sql/index.js';
import type { ExecutionRecord } from '../../src/domain/executions.js';
import type { ExecutionStore } from '../../src/ports/executions.js';
import { realDatabaseUrl, uniqueSchema } from '../helpers/env.js';
import { dropSchema } from '../helpers/stores.js';

const EXECUTIONS = 300;
const WORKERS = 4;
const ROUNDS = 6;

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function record(id: string, accountId: string): ExecutionRecord {
  return {
    id,
    accountId,
    status: 'RUNNING',
    query: 'q',
    context: {},
    mode: 'PARALLEL',
    aggregation: 'merge',
    customAggregator: null,
    dependencies: null,
    selectedAgents: [],
    timeoutMs: null,
    maxCostMicros: null,
    fees: { tier: 'DEVELOPER', feeBasisPoints: null },
    webhook: null,
    estimatedCostMicros: 0,
    estimatedDurationMs: 0,
    progress: { completed: 0, total: 3, currentAgent: null },
    result: null,
    error: null,
    actualCostMicros: null,
    actualDurationMs: null,
    agentsUsed: null,
    createdAt: new Date().toISOString(),
    startedAt: new Date().toISOString(),
    completedAt: null,
  };
}

t.test('concurrent group-committed progress updates and transitions on shared rows do not deadlock', { skip: realDatabaseUrl === null ? 'DATABASE_URL not set' : false }, async (t) => {
  const databaseUrl = realDatabaseUrl!;
  const schema = uniqueSchema('deadlock');
  const durable = await openDurableStores({ databaseUrl, dataDir: MEMORY_DATA_DIR, databaseSchema: schema, poolSize: 4 });
  t.teardown(async () => {
    await durable.close();
    await dropSchema(schema);
  });
  const account = await durable.accounts.create({ id: 'acc_dl', name: 'deadlock', tier: 'DEVELOPER', limits: null, feeBasisPoints: null });
  const ids = Array.from({ length: EXECUTIONS }, (_, i) => `exec_dl_${String(i).padStart(4, '0')}`);
  await Promise.all(ids.map((id) => durable.executions.insert(record(id, account.id))));

  // Each "worker" has its own pool and its own group commits, on the same schema.
  const handles: SqlHandle[] = [];
  const workers: ExecutionStore[] = [durable.executions];
  for (let w = 1; w < WORKERS; w++) {
    const handle = await openSql({ databaseUrl, dataDir: MEMORY_DATA_DIR, databaseSchema: schema, poolSize: 4 });
    handles.push(handle);
    workers.push(sqlExecutionStore(handle.sql));
  }
  // Registered after the stores' teardown, so it runs first (tap runs teardowns in reverse).
  t.teardown(() => Promise.all(handles.map((h) => h.close())));

  const errors: unknown[] = [];
  const note = (p: Promise<unknown>) => p.catch((error: unknown) => void errors.push(error));
  const work: Promise<unknown>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const worker of workers) {
      for (const id of shuffled(ids)) {
        work.push(note(worker.updateProgress(id, { completed: round, total: 3, currentAgent: 'a' })));
        // A transition that does not change the status (RUNNING → RUNNING) still locks the row.
        work.push(note(worker.transition(id, ['RUNNING'], 'RUNNING', { agentsUsed: round })));
      }
    }
  }
  // Finally every execution completes, from a random worker.
  for (const id of shuffled(ids)) {
    work.push(note(workers[Math.floor(Math.random() * workers.length)]!.transition(id, ['RUNNING'], 'COMPLETED', { agentsUsed: 3 })));
  }
  await Promise.all(work);

  t.same(
    errors.map((e) => (e as { code?: string }).code ?? String(e)),
    [],
    'no store call failed (no 40P01 deadlock)',
  );
  const after = await Promise.all(ids.map((id) => durable.executions.getById(id)));
  t.equal(after.filter((r) => r?.status === 'COMPLETED' && r.agentsUsed === 3).length, EXECUTIONS, 'every execution completed');
});
