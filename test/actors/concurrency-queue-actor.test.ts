import t from 'tap';
import type { PromotionOutcome } from '../../src/ports/limits.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { startConcurrency } from '../../src/services/limits/concurrency.js';
import { memoryCoordination } from '../../src/adapters/stores/redis/index.js';
import { recordingLogger } from './fixtures/helpers.js';

const LIMITS = { concurrent: 1, queueSize: 5 };

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function setup(t: { teardown(fn: () => unknown): void }) {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());
  const queue = startConcurrency(runtime, {
    store: memoryCoordination(),
    accounts: { get: async () => null },
    leaseMs: 60_000,
    scanEveryMs: 60_000,
    logger: recordingLogger().logger,
    unclaimedRetryMs: 1,
    unclaimedAttempts: 3,
  });
  return { queue };
}

/** A starter that answers from a table and records what it was asked. */
function starter(answers: Record<string, PromotionOutcome>) {
  const asked: string[] = [];
  return { asked, start: async (_accountId: string, holderId: string) => (asked.push(holderId), answers[holderId] ?? 'unknown') };
}

t.test('a release starts the promoted holder through the starter that knows it', async (t) => {
  const { queue } = setup(t);
  const other = starter({});
  const mine = starter({ b: 'started' });
  queue.addStarter(other);
  queue.addStarter(mine);
  await queue.acquire('acct', 'a', { limits: LIMITS });
  t.same(await queue.acquire('acct', 'b', { limits: LIMITS }), { status: 'queued', position: 1, promoted: [] });
  queue.release('acct', 'a');
  await until(() => mine.asked.includes('b'));
  t.same(other.asked, ['b'], 'the first starter was asked and did not know it');
  t.equal(await queue.state('acct', 'b'), 'running');
});

t.test('a promoted holder that already finished gives its slot to the next in line', async (t) => {
  const { queue } = setup(t);
  const known = starter({ b: 'finished', c: 'started' });
  queue.addStarter(known);
  for (const id of ['a', 'b', 'c']) await queue.acquire('acct', id, { limits: LIMITS });
  queue.release('acct', 'a');
  await until(() => known.asked.includes('c'));
  t.same(known.asked, ['b', 'c']);
  t.equal(await queue.state('acct', 'b'), 'none');
  t.equal(await queue.state('acct', 'c'), 'running');
});

t.test('a promoted holder no starter knows is asked about again, then its slot is released', async (t) => {
  const { queue } = setup(t);
  const known = starter({ c: 'started' });
  queue.addStarter(known);
  for (const id of ['a', 'ghost', 'c']) await queue.acquire('acct', id, { limits: LIMITS });
  queue.release('acct', 'a');
  await until(() => known.asked.includes('c'));
  t.same(known.asked, ['ghost', 'ghost', 'ghost', 'c'], 'three attempts, then the next holder');
  t.equal(await queue.state('acct', 'ghost'), 'none');
});
