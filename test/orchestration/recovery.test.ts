/**
 * Recovery scan: a dead worker's RUNNING executions are closed in parallel (not one round trip
 * after another), and each gets `execution.started` (replayed, skipped by the outbox if already
 * enqueued) before `execution.failed`.
 */
import t from 'tap';
import { createRecovery, EXECUTION_INTERRUPTED } from '../../src/services/orchestration/recovery.js';
import type { ExecutionRecord, ExecutionStatusName } from '../../src/domain/executions.js';

const STORE_LATENCY_MS = 40;
const COUNT = 100;

const pause = () => new Promise((resolve) => setTimeout(resolve, STORE_LATENCY_MS));

function running(id: string): ExecutionRecord {
  return { id, accountId: 'acc_1', status: 'RUNNING', startedAt: new Date(Date.now() - 60_000).toISOString(), progress: null } as unknown as ExecutionRecord;
}

t.test('a dead worker\'s executions close in parallel, started before failed', async (t) => {
  const rows = new Map(Array.from({ length: COUNT }, (_, i) => [`exec_${i}`, running(`exec_${i}`)]));
  const events: string[] = [];
  const released: string[] = [];
  const scan = createRecovery({
    executions: {
      listLive: async () => [...rows.values()].map((r) => ({ id: r.id, status: r.status, updatedAt: new Date(Date.now() - 120_000) })),
      getById: async (id) => (await pause(), rows.get(id) ?? null),
      transition: async (id, from, status: ExecutionStatusName, patch) => {
        await pause();
        const row = rows.get(id);
        if (row === undefined || !from.includes(row.status)) return null;
        const next = { ...row, ...patch, status } as ExecutionRecord;
        rows.set(id, next);
        return next;
      },
    },
    concurrency: {
      limits: async () => null,
      state: async () => (await pause(), 'none' as const),
      acquire: async () => ({ status: 'full' as const, promoted: [] }),
      release: (_a, id) => void released.push(id),
    },
    start: () => undefined,
    events: {
      transitioned: (r) => events.push(`${r.id}:${r.status}`),
      replayed: (r) => events.push(`${r.id}:${r.status}`),
    },
    metrics: { queueDepth: () => undefined },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never,
    graceMs: 30_000,
    soleWorker: false,
  });
  const started = Date.now();
  await scan(false);
  const tookMs = Date.now() - started;
  t.ok([...rows.values()].every((r) => r.status === 'FAILED' && r.error?.code === EXECUTION_INTERRUPTED), 'every one closed');
  t.equal(released.length, COUNT, 'every slot freed');
  // One at a time this takes COUNT × 3 round trips (12 s here).
  t.ok(tookMs < (COUNT * 3 * STORE_LATENCY_MS) / 4, `one scan closed ${COUNT} in ${tookMs} ms`);
  for (let i = 0; i < COUNT; i++) {
    const startedAt = events.indexOf(`exec_${i}:RUNNING`);
    const failedAt = events.indexOf(`exec_${i}:FAILED`);
    t.ok(startedAt >= 0 && startedAt < failedAt, `exec_${i}: started before failed`);
  }
});

t.test('an execution whose owner runs on this worker is left alone even when its lease lapsed', async (t) => {
  const rows = new Map([['exec_alive', running('exec_alive')], ['exec_dead', running('exec_dead')]]);
  const scan = createRecovery({
    executions: {
      listLive: async () => [...rows.values()].map((r) => ({ id: r.id, status: r.status, updatedAt: new Date(Date.now() - 120_000) })),
      getById: async (id) => rows.get(id) ?? null,
      transition: async (id, from, status: ExecutionStatusName, patch) => {
        const row = rows.get(id);
        if (row === undefined || !from.includes(row.status)) return null;
        const next = { ...row, ...patch, status } as ExecutionRecord;
        rows.set(id, next);
        return next;
      },
    },
    concurrency: {
      limits: async () => null,
      // Both leases lapsed: overload delayed the renewal of the live one.
      state: async () => 'expired' as const,
      acquire: async () => ({ status: 'full' as const, promoted: [] }),
      release: () => undefined,
    },
    start: () => undefined,
    events: { transitioned: () => undefined },
    metrics: { queueDepth: () => undefined },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never,
    graceMs: 30_000,
    soleWorker: true,
    runningHere: (id) => id === 'exec_alive',
  });
  await scan(false);
  t.equal(rows.get('exec_alive')?.status, 'RUNNING', 'the live one still runs');
  t.equal(rows.get('exec_dead')?.status, 'FAILED', 'the orphan is closed');
});
