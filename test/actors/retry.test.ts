import t from 'tap';
import { createManualClock } from '../../src/actors/kit/manual-clock.js';
import { retryWithin, withRetries } from '../../src/actors/kit/retry.js';

/** Lets the retry loop reach its next await (a settled promise, then the timer). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('a write that fails twice then succeeds is retried with doubling waits', async (t) => {
  const clock = createManualClock();
  let calls = 0;
  const waits: number[] = [];
  const result = retryWithin(
    async () => {
      calls++;
      if (calls < 3) throw new Error(`fail ${calls}`);
      return 'ok';
    },
    { withinMs: 10_000, initialDelayMs: 100, clock, onRetry: (_e, _a, delayMs) => waits.push(delayMs) },
  );
  await settle();
  t.equal(calls, 1);
  clock.advance(99);
  await settle();
  t.equal(calls, 1, 'not before the first wait is over');
  clock.advance(1);
  await settle();
  t.equal(calls, 2);
  clock.advance(200);
  await settle();
  t.equal(await result, 'ok');
  t.same(waits, [100, 200]);
});

t.test('the wait is capped and the last error is rethrown once the deadline passes', async (t) => {
  const clock = createManualClock();
  let calls = 0;
  const waits: number[] = [];
  const result = retryWithin(
    async () => {
      calls++;
      throw new Error(`fail ${calls}`);
    },
    { withinMs: 1_000, initialDelayMs: 200, maxDelayMs: 300, clock, onRetry: (_e, _a, delayMs) => waits.push(delayMs) },
  );
  const failure = result.then(
    () => null,
    (error: unknown) => error,
  );
  for (let i = 0; i < 10; i++) {
    await settle();
    clock.advance(300);
  }
  t.match(await failure, { message: 'fail 5' });
  // Attempts at 0, 300 (the first 200 ms wait ends inside a 300 ms step), 600, 900; the last wait
  // is what is left of the 1 s, then the fifth attempt fails for good.
  t.same(waits, [200, 300, 300, 100]);
  t.equal(calls, 5);
});

t.test('a permanent error is not retried', async (t) => {
  const clock = createManualClock();
  let calls = 0;
  const result = retryWithin(
    async () => {
      calls++;
      throw new TypeError('bug');
    },
    { withinMs: 10_000, clock, isPermanent: (e) => e instanceof TypeError },
  );
  await t.rejects(result, TypeError);
  t.equal(calls, 1);
  t.equal(clock.pending(), 0);
});

t.test('withRetries retries the named methods only and passes the rest through', async (t) => {
  let fails = 2;
  const store = {
    calls: 0,
    async write(value: string) {
      this.calls++;
      if (fails-- > 0) throw new Error('down');
      return `wrote ${value}`;
    },
    async read() {
      throw new Error('not retried');
    },
  };
  const retrying = withRetries(store, ['write'], () => ({ withinMs: 5_000, initialDelayMs: 1 }));
  t.equal(await retrying.write('x'), 'wrote x');
  t.equal(store.calls, 3, 'this is the target inside the method');
  await t.rejects(retrying.read(), { message: 'not retried' });
});
