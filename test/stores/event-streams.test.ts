/**
 * The event-stream port (Coordination.appendEvent/readEvents/followEvents) on every coordination
 * kind: in-process always, Redis Streams when REDIS_URL is set. Both must behave the same.
 */
import t from 'tap';
import type { StreamEvent } from '../../src/domain/events.js';
import { coordinationKinds, openTestCoordination, openTestWorkers } from '../helpers/stores.js';

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const stream = (): string => `exec_${Math.random().toString(16).slice(2)}`;

for (const kind of coordinationKinds()) {
  t.test(`${kind}: appended events get sequence numbers 1, 2, 3 and read back in order`, async (t) => {
    const c = await openTestCoordination(t, kind);
    const s = stream();
    const a = await c.appendEvent(s, 'chunk', '{"content":"a"}');
    const b = await c.appendEvent(s, 'chunk', '{"content":"b"}');
    const d = await c.appendEvent(s, 'done', '{}');
    t.same([a.seq, b.seq, d.seq], [1, 2, 3]);
    t.same(await c.readEvents(s, 0, 10), [a, b, d]);
    t.same(await c.readEvents(s, 1, 10), [b, d], 'after a sequence number');
    t.same(await c.readEvents(s, 0, 2), [a, b], 'limited');
    t.same(await c.readEvents('exec_unknown', 0, 10), [], 'an unknown stream is empty');
  });

  t.test(`${kind}: concurrent appends from two workers never share a sequence number`, async (t) => {
    const [w1, w2] = await openTestWorkers(t, kind, 2);
    const s = stream();
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? w1! : w2!).appendEvent(s, 'chunk', JSON.stringify({ i }))),
    );
    const seqs = appended.map((e) => e.seq).sort((x, y) => x - y);
    t.same(seqs, Array.from({ length: 40 }, (_, i) => i + 1));
    t.equal((await w2!.readEvents(s, 0, 100)).length, 40);
  });

  t.test(`${kind}: a follower gets existing events, then live ones from another worker, each once and in order`, async (t) => {
    const [writer, reader] = await openTestWorkers(t, kind, 2);
    const s = stream();
    await writer!.appendEvent(s, 'chunk', '"1"');
    await writer!.appendEvent(s, 'chunk', '"2"');
    const seen: StreamEvent[] = [];
    const stop = await reader!.followEvents(s, 0, (e) => seen.push(e));
    t.teardown(stop);
    for (let i = 3; i <= 30; i++) await writer!.appendEvent(s, 'chunk', JSON.stringify(String(i)));
    await until(() => seen.length >= 30, '30 events');
    await new Promise((r) => setTimeout(r, 50));
    t.same(seen.map((e) => e.seq), Array.from({ length: 30 }, (_, i) => i + 1));
  });

  t.test(`${kind}: a follower resumes after a sequence number without duplicates`, async (t) => {
    const c = await openTestCoordination(t, kind);
    const s = stream();
    for (let i = 1; i <= 5; i++) await c.appendEvent(s, 'chunk', String(i));
    const seen: number[] = [];
    const stop = await c.followEvents(s, 3, (e) => seen.push(e.seq));
    await c.appendEvent(s, 'done', '{}');
    await until(() => seen.length >= 3, 'three events');
    await stop();
    await c.appendEvent(s, 'late', '{}');
    await new Promise((r) => setTimeout(r, 50));
    t.same(seen, [4, 5, 6], 'nothing after it stopped');
  });

  t.test(`${kind}: the sequence continues after a floor when the counter is behind it`, async (t) => {
    const c = await openTestCoordination(t, kind);
    const s = stream();
    const first = await c.appendEvent(s, 'chunk', '"x"', 7);
    const second = await c.appendEvent(s, 'chunk', '"y"', 7);
    t.same([first.seq, second.seq], [8, 9]);
    t.same((await c.readEvents(s, 8, 10)).map((e) => e.seq), [9]);
  });
}
