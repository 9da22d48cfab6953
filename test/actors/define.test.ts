import t from 'tap';
import { defineActor, spawnActor } from '../../src/actors/kit/define.js';
import { createManualClock } from '../../src/actors/kit/manual-clock.js';
import { Directive, dispatch, start, stop } from '../../src/actors/kit/nact.js';
import type { TimerTick } from '../../src/actors/kit/timers.js';
import { gate, settle } from './fixtures/helpers.js';

type TickerMessage =
  | { readonly type: 'ticker.arm'; readonly delayMs: number }
  | { readonly type: 'ticker.cancelAfter'; readonly until: Promise<void> }
  | { readonly type: 'ticker.crash' }
  | { readonly type: 'ticker.tick'; readonly timer: TimerTick };

function ticker(seen: string[], inits: { count: number }) {
  return defineActor<number, TickerMessage>({
    init: () => {
      inits.count += 1;
      return 0;
    },
    handle: async (ticks, msg, kit) => {
      switch (msg.type) {
        case 'ticker.arm':
          kit.timers.start('tick', msg.delayMs, (timer) => ({ type: 'ticker.tick', timer }));
          return ticks;
        case 'ticker.cancelAfter':
          await msg.until;
          kit.timers.cancel('tick');
          return ticks;
        case 'ticker.crash':
          throw new Error('boom');
        case 'ticker.tick':
          seen.push(`tick ${ticks + 1}`);
          return ticks + 1;
      }
    },
  });
}

t.test('a timer message reaches the handler when its timer fires', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const seen: string[] = [];
  const ref = spawnActor(system, ticker(seen, { count: 0 }), { clock });

  dispatch(ref, { type: 'ticker.arm', delayMs: 100 });
  await settle();
  clock.advance(100);
  await settle();

  t.same(seen, ['tick 1']);
});

t.test('a firing queued behind a message that cancels its timer is never handled', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const seen: string[] = [];
  const ref = spawnActor(system, ticker(seen, { count: 0 }), { clock });
  const hold = gate();

  dispatch(ref, { type: 'ticker.arm', delayMs: 100 });
  dispatch(ref, { type: 'ticker.cancelAfter', until: hold.promise });
  await settle();
  clock.advance(100); // the firing is now in the mailbox, behind the busy handler
  hold.open();
  await settle();

  t.same(seen, [], 'the stale firing was filtered out');
});

t.test('timers are cancelled when the actor stops', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const ref = spawnActor(system, ticker([], { count: 0 }), { clock });
  dispatch(ref, { type: 'ticker.arm', delayMs: 100 });
  await settle();
  t.equal(clock.pending(), 1);

  stop(ref);
  await settle();

  t.equal(clock.pending(), 0);
});

t.test('timers of a child are cancelled when its parent stops', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const parent = spawnActor(system, ticker([], { count: 0 }), { clock });
  const child = spawnActor(parent, ticker([], { count: 0 }), { clock });
  dispatch(child, { type: 'ticker.arm', delayMs: 100 });
  await settle();
  t.equal(clock.pending(), 1);

  stop(parent);
  await settle();

  t.equal(clock.pending(), 0, 'nact alone would leave the child running');
});

t.test('timers of every actor are cancelled when the system stops', async (t) => {
  const clock = createManualClock();
  const system = start();
  const parent = spawnActor(system, ticker([], { count: 0 }), { clock });
  const child = spawnActor(parent, ticker([], { count: 0 }), { clock });
  dispatch(parent, { type: 'ticker.arm', delayMs: 100 });
  dispatch(child, { type: 'ticker.arm', delayMs: 100 });
  await settle();
  t.equal(clock.pending(), 2);

  stop(system);
  await settle();

  t.equal(clock.pending(), 0);
});

t.test('timers are cancelled when the actor restarts', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const seen: string[] = [];
  const inits = { count: 0 };
  const ref = spawnActor(system, ticker(seen, inits), { clock, onCrash: () => Directive.reset });
  dispatch(ref, { type: 'ticker.arm', delayMs: 100 });
  await settle();

  dispatch(ref, { type: 'ticker.crash' });
  await settle();
  clock.advance(1000);
  await settle();

  t.equal(inits.count, 2, 'the actor restarted');
  t.equal(clock.pending(), 0);
  t.same(seen, []);
});
