/** The worker's one slot-lease heartbeat (src/services/limits/lease-keeper.ts). */
import t from 'tap';
import { startLeaseKeeper } from '../../src/services/limits/lease-keeper.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('held slots are renewed on every beat, per account, and dropped ones are not', async (t) => {
  const renewals: Array<[string, string[]]> = [];
  const keeper = startLeaseKeeper({
    concurrency: { renew: async (accountId, ids) => (renewals.push([accountId, [...ids].sort()]), []) },
    renewEveryMs: 20,
    logger: { warn: () => undefined },
  });
  t.teardown(() => keeper.stop());
  keeper.hold('a', 'exec_1');
  keeper.hold('a', 'exec_2');
  keeper.hold('b', 'run_1');
  await wait(35);
  t.same(renewals.slice(0, 2).sort(), [['a', ['exec_1', 'exec_2']], ['b', ['run_1']]]);
  t.ok(keeper.holds('exec_1'));
  keeper.drop('exec_1');
  keeper.drop('run_1');
  t.notOk(keeper.holds('exec_1'));
  renewals.length = 0;
  await wait(30);
  t.ok(renewals.length >= 1);
  t.ok(renewals.every(([account, ids]) => account === 'a' && ids.join() === 'exec_2'), 'only what is still held');
});

t.test('a renewal that fails is logged and the next beat tries again', async (t) => {
  let calls = 0;
  const warnings: string[] = [];
  const keeper = startLeaseKeeper({
    concurrency: {
      renew: async () => {
        calls++;
        throw new Error('redis down');
      },
    },
    renewEveryMs: 15,
    logger: { warn: (_o: unknown, msg?: string) => void warnings.push(String(msg)) },
  });
  t.teardown(() => keeper.stop());
  keeper.hold('a', 'exec_1');
  await wait(60);
  t.ok(calls >= 2, `tried ${calls} times`);
  t.ok(warnings.some((w) => w.includes('retrying on the next beat')));
});
