import t from 'tap';
import { AskTimeout } from '../../src/actors/kit/errors.js';
import { createManualClock, type ManualClock } from '../../src/actors/kit/manual-clock.js';
import { ask } from '../../src/actors/kit/ask.js';
import { startActorSystem, type ActorRuntime } from '../../src/actors/root-supervisor.js';
import { spawnUsageActor, type UsageActorOptions } from '../../src/actors/usage-actor.js';
import { UsageFlushFailed, type UsageRecorder } from '../../src/actors/usage-protocol.js';
import type { UsageEntry } from '../../src/domain/usage.js';
import { eventually, gate, recordingLogger, settle, type LogLine } from './fixtures/helpers.js';

/** In-memory UsageStore double: records batches, fails on demand, can hold a write open. */
class FakeUsageStore {
  readonly batches: UsageEntry[][] = [];
  readonly prunedAt: Date[] = [];
  failures = 0;
  hold: Promise<void> | undefined;

  async recordBatch(entries: readonly UsageEntry[]): Promise<void> {
    if (this.hold) await this.hold;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('database unavailable');
    }
    this.batches.push([...entries]);
  }

  async prune(now: Date): Promise<number> {
    this.prunedAt.push(now);
    return 0;
  }

  get written(): string[] {
    return this.batches.flat().map((entry) => entry.endpoint);
  }
}

const entry = (n: number): UsageEntry => ({
  keyId: 'key_1',
  at: new Date(Date.UTC(2024, 0, 1, 0, 0, n)),
  endpoint: `/v1/e/${n}`,
  method: 'GET',
  statusCode: 200,
  ipAddress: '127.0.0.1',
});

interface Harness {
  readonly store: FakeUsageStore;
  readonly clock: ManualClock;
  readonly usage: UsageRecorder;
  readonly lines: LogLine[];
  readonly runtime: ActorRuntime;
}

function harness(t: { teardown(fn: () => unknown): void }, options: Partial<UsageActorOptions> = {}): Harness {
  const store = new FakeUsageStore();
  const clock = createManualClock();
  const { logger, lines } = recordingLogger();
  const runtime = startActorSystem({ logger, clock });
  t.teardown(() => runtime.stop());
  const { recorder } = spawnUsageActor(runtime, { store, logger, ...options });
  return { store, clock, usage: recorder, lines, runtime };
}

t.test('recorded entries are written together once the flush interval passes', async (t) => {
  const { store, clock, usage } = harness(t, { flushIntervalMs: 250 });

  usage.record(entry(1));
  usage.record(entry(2));
  await settle();
  t.equal(store.batches.length, 0, 'nothing written before the interval');
  clock.advance(250);
  await eventually(() => store.batches.length === 1);

  t.same(store.written, ['/v1/e/1', '/v1/e/2']);
});

t.test('a full batch is written at once, without waiting for the interval', async (t) => {
  const { store, usage } = harness(t, { maxBatch: 3 });

  for (let i = 1; i <= 4; i++) usage.record(entry(i));
  await eventually(() => store.batches.length === 1);
  await settle();

  t.same(store.batches.map((batch) => batch.length), [3], 'one batch of maxBatch; the rest waits for the interval');
});

t.test('flush resolves only after the store has written everything recorded before it', async (t) => {
  const { store, usage } = harness(t);
  const hold = gate();
  store.hold = hold.promise;
  usage.record(entry(1));
  usage.record(entry(2));

  let flushed = false;
  const flushing = usage.flush(1000).then(() => {
    flushed = true;
  });
  await settle();
  t.notOk(flushed, 'still waiting on the write');
  hold.open();
  await flushing;

  t.same(store.written, ['/v1/e/1', '/v1/e/2']);
});

t.test('flush with nothing buffered resolves at once', async (t) => {
  const { store, usage } = harness(t);

  await usage.flush(1000);

  t.equal(store.batches.length, 0);
});

t.test('a batch the store fails to write is retried on the next flush without losing entries', async (t) => {
  const { store, clock, usage, lines } = harness(t, { flushIntervalMs: 250 });
  store.failures = 1;
  usage.record(entry(1));
  usage.record(entry(2));
  await settle();
  clock.advance(250);
  await settle();
  t.equal(store.batches.length, 0, 'the first attempt failed');
  usage.record(entry(3));
  await settle();

  clock.advance(250);
  await eventually(() => store.batches.length === 1);
  await settle();

  t.same(store.written, ['/v1/e/1', '/v1/e/2', '/v1/e/3'], 'in recording order, nothing lost');
  t.match(lines, [
    { level: 'warn', message: 'usage batch write failed; will retry on the next flush' },
    { level: 'info', message: 'usage store writes recovered' },
  ]);
});

t.test('flush rejects with UsageFlushFailed while the store fails, and a later flush writes everything', async (t) => {
  const { store, usage } = harness(t);
  store.failures = 1;
  usage.record(entry(1));

  await t.rejects(usage.flush(1000), UsageFlushFailed);
  await usage.flush(1000);

  t.same(store.written, ['/v1/e/1']);
});

t.test('while the store is down the buffer keeps at most maxBuffered entries, dropping the oldest', async (t) => {
  const { store, clock, usage, lines } = harness(t, { flushIntervalMs: 250, maxBatch: 2, maxBuffered: 4 });
  store.failures = Number.POSITIVE_INFINITY;
  for (let i = 1; i <= 10; i++) {
    usage.record(entry(i));
    await settle(3);
  }
  clock.advance(250);
  await settle();

  store.failures = 0;
  await usage.flush(1000);

  t.same(store.written, ['/v1/e/7', '/v1/e/8', '/v1/e/9', '/v1/e/10'], 'the newest maxBuffered entries survive');
  t.equal(lines.filter((line) => line.message.startsWith('usage buffer full')).length, 1, 'one warning per outage, not per drop');
  t.match(lines.at(-1), { level: 'info', message: 'usage store writes recovered', context: { dropped: 6 } });
});

t.test('flush times out with AskTimeout when the store never answers', async (t) => {
  const { store, usage } = harness(t);
  store.hold = new Promise(() => undefined);
  usage.record(entry(1));

  await t.rejects(usage.flush(30), AskTimeout);
});

t.test('old request-log rows are pruned every prune interval', async (t) => {
  const { store, clock } = harness(t, { pruneIntervalMs: 3_600_000 });

  clock.advance(3_600_000);
  await settle();
  clock.advance(3_600_000);
  await settle();

  t.equal(store.prunedAt.length, 2);
  t.equal(store.prunedAt[1]?.getTime(), clock.now());
});

t.test('the flush reply reports what was written and dropped', async (t) => {
  const { runtime, store } = harness(t);
  const { ref, recorder } = spawnUsageActor(runtime, { store, logger: recordingLogger().logger }, 'usage-2');
  recorder.record(entry(1));

  const result = await ask(ref, (replyTo) => ({ type: 'usage.flush', replyTo }), 1000);

  t.same(result, { type: 'usage.flushed', ok: true, written: 1, dropped: 0, buffered: 0 });
});

t.test('recording after the actor system stopped is a silent no-op', async (t) => {
  const { runtime, usage } = harness(t);
  await runtime.stop();

  t.doesNotThrow(() => usage.record(entry(1)));
});
