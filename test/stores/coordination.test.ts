import t from 'tap';
import { coordinationKinds, openTestCoordination, openTestWorkers, recordingLogger } from '../helpers/stores.js';

/** Resolves with the next `count` messages a handler sees. */
function collector(count: number): { handler: (m: string) => void; done: Promise<string[]> } {
  const seen: string[] = [];
  let resolve: (value: string[]) => void = () => {};
  const done = new Promise<string[]>((r) => (resolve = r));
  return {
    handler: (m) => {
      seen.push(m);
      if (seen.length === count) resolve(seen);
    },
    done,
  };
}

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const kind of coordinationKinds()) {
  t.test(`coordination (${kind})`, async (t) => {
    t.test('a subscriber receives published messages, in order, as sent', async (t) => {
      const [a, b] = await openTestWorkers(t, kind, 2);
      if (a === undefined || b === undefined) throw new Error('workers missing');
      const got = collector(3);
      await b.subscribe('auth', got.handler);
      t.equal(await a.publish('auth', 'one'), 1);
      await a.publish('auth', '1{"looks":"like an envelope"}');
      await a.publish('auth', '');
      t.same(await got.done, ['one', '1{"looks":"like an envelope"}', '']);
    });

    t.test('publish counts receiving workers, not handlers', async (t) => {
      const [a, b] = await openTestWorkers(t, kind, 2);
      if (a === undefined || b === undefined) throw new Error('workers missing');
      t.equal(await a.publish('nobody', 'x'), 0);
      await a.subscribe('c', () => {});
      await b.subscribe('c', () => {});
      await b.subscribe('c', () => {});
      t.equal(await a.publish('c', 'x'), 2);
    });

    t.test('channels are separate', async (t) => {
      const c = await openTestCoordination(t, kind);
      const seen: string[] = [];
      await c.subscribe('left', (m) => void seen.push(`left:${m}`));
      await c.subscribe('right', (m) => void seen.push(`right:${m}`));
      await c.publish('left', 'x');
      await settle(50);
      t.same(seen, ['left:x']);
    });

    t.test('after unsubscribing, a handler receives nothing more', async (t) => {
      const c = await openTestCoordination(t, kind);
      const kept = collector(2);
      const dropped: string[] = [];
      await c.subscribe('ch', kept.handler);
      const unsubscribe = await c.subscribe('ch', (m) => void dropped.push(m));
      await c.publish('ch', 'first');
      await settle(50);
      await unsubscribe();
      await unsubscribe(); // twice is harmless
      await c.publish('ch', 'second');
      t.same(await kept.done, ['first', 'second']);
      t.same(dropped, ['first']);
    });

    t.test('the last unsubscribe stops delivery to that worker', async (t) => {
      const [a, b] = await openTestWorkers(t, kind, 2);
      if (a === undefined || b === undefined) throw new Error('workers missing');
      const unsubscribe = await b.subscribe('gone', () => {});
      await unsubscribe();
      t.equal(await a.publish('gone', 'x'), 0);
    });

    t.test('a throwing handler does not stop the others, and its failure is logged', async (t) => {
      const log = recordingLogger();
      const c = await openTestCoordination(t, kind, log);
      const got = collector(2);
      await c.subscribe('err', () => {
        throw new Error('boom (expected in this test)');
      });
      await c.subscribe('err', async () => Promise.reject(new Error('async boom (expected in this test)')));
      await c.subscribe('err', got.handler);
      await c.publish('err', 'a');
      await c.publish('err', 'b');
      t.same(await got.done, ['a', 'b']);
      await settle(20);
      t.equal(log.lines.filter((l) => l.message === 'subscriber handler failed').length, 4);
    });

    t.test('broadcastAndAwait waits for every worker to finish its handlers', async (t) => {
      const [a, b, c] = await openTestWorkers(t, kind, 3);
      if (a === undefined || b === undefined || c === undefined) throw new Error('workers missing');
      const finished: string[] = [];
      await b.subscribe('revoke', async (m) => {
        await settle(100);
        finished.push(`b:${m}`);
      });
      await c.subscribe('revoke', (m) => void finished.push(`c:${m}`));
      const result = await a.broadcastAndAwait('revoke', 'key_1', 2_000);
      t.same(result, { delivered: 2, acknowledged: 2 });
      t.same(finished.sort(), ['b:key_1', 'c:key_1'], 'both handlers had finished when it resolved');
    });

    t.test('broadcastAndAwait with no subscribers resolves at once', async (t) => {
      const c = await openTestCoordination(t, kind);
      t.same(await c.broadcastAndAwait('empty', 'x', 5_000), { delivered: 0, acknowledged: 0 });
    });

    t.test('concurrent broadcasts are acknowledged independently', async (t) => {
      const [a, b] = await openTestWorkers(t, kind, 2);
      if (a === undefined || b === undefined) throw new Error('workers missing');
      await b.subscribe('many', () => settle(20));
      const results = await Promise.all([1, 2, 3, 4, 5].map((i) => a.broadcastAndAwait('many', `m${i}`, 2_000)));
      t.same(results, Array(5).fill({ delivered: 1, acknowledged: 1 }));
    });

    t.test('broadcastAndAwait gives up at the timeout when a handler hangs', async (t) => {
      const [a, b, c] = await openTestWorkers(t, kind, 3);
      if (a === undefined || b === undefined || c === undefined) throw new Error('workers missing');
      await b.subscribe('stuck', () => new Promise<void>(() => {}));
      await c.subscribe('stuck', () => {});
      const started = Date.now();
      const result = await a.broadcastAndAwait('stuck', 'x', 300);
      const elapsed = Date.now() - started;
      t.same(result, { delivered: 2, acknowledged: 1 });
      t.ok(elapsed >= 280 && elapsed < 1_000, `took ${elapsed}ms`);
    });

    t.test('ping answers and a closed adapter refuses to publish', async (t) => {
      const c = await openTestCoordination(t, kind);
      await t.resolves(c.ping());
      await c.close();
      await c.close(); // twice is harmless
      await t.rejects(c.publish('x', 'y'));
    });
  });
}
