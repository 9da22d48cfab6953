import t from 'tap';
import { createManualClock } from '../../src/actors/kit/manual-clock.js';
import { createKeyedTimers, type TimerTick } from '../../src/actors/kit/timers.js';

interface Fired {
  readonly label: string;
  readonly timer: TimerTick;
}

function setup(): { clock: ReturnType<typeof createManualClock>; fired: Fired[]; timers: ReturnType<typeof createKeyedTimers<Fired>> } {
  const clock = createManualClock();
  const fired: Fired[] = [];
  const timers = createKeyedTimers<Fired>((msg) => fired.push(msg), clock);
  return { clock, fired, timers };
}

t.test('a timer fires once after its delay', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('k', 100, (timer) => ({ label: 'first', timer }));

  clock.advance(99);
  t.equal(fired.length, 0);
  clock.advance(1);
  t.same(fired.map((f) => f.label), ['first']);
  t.ok(timers.accept(fired[0]!.timer), 'the firing is current');
  t.notOk(timers.isActive('k'), 'an accepted firing frees the key');
});

t.test('starting a timer with a key in use replaces the old timer', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('k', 100, (timer) => ({ label: 'old', timer }));
  clock.advance(50);
  timers.start('k', 100, (timer) => ({ label: 'new', timer }));

  clock.advance(1000);

  t.same(fired.map((f) => f.label), ['new']);
  t.equal(clock.pending(), 0);
});

t.test('a cancelled timer never fires', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('k', 100, (timer) => ({ label: 'x', timer }));
  timers.cancel('k');

  clock.advance(1000);

  t.equal(fired.length, 0);
  t.notOk(timers.isActive('k'));
});

t.test('a firing that was already queued when its timer was replaced is rejected as stale', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('k', 100, (timer) => ({ label: 'old', timer }));
  clock.advance(100);
  const late = fired[0]!;
  timers.start('k', 100, (timer) => ({ label: 'new', timer }));
  clock.advance(100);
  const current = fired[1]!;

  t.notOk(timers.accept(late.timer), 'the replaced generation is ignored');
  t.ok(timers.accept(current.timer));
  t.notOk(timers.accept(current.timer), 'a firing is accepted only once');
});

t.test('a firing that was already queued when its timer was cancelled is rejected as stale', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('k', 100, (timer) => ({ label: 'x', timer }));
  clock.advance(100);
  timers.cancel('k');

  t.notOk(timers.accept(fired[0]!.timer));
});

t.test('cancelAll clears every timer', async (t) => {
  const { clock, fired, timers } = setup();
  timers.start('a', 10, (timer) => ({ label: 'a', timer }));
  timers.start('b', 20, (timer) => ({ label: 'b', timer }));

  timers.cancelAll();
  clock.advance(100);

  t.equal(fired.length, 0);
  t.equal(clock.pending(), 0);
});

t.test('a firing from another timer set never passes for a current one', async (t) => {
  const clock = createManualClock();
  const fired: Fired[] = [];
  const before = createKeyedTimers<Fired>((msg) => fired.push(msg), clock);
  before.start('k', 10, (timer) => ({ label: 'before', timer }));
  clock.advance(10);
  const after = createKeyedTimers<Fired>((msg) => fired.push(msg), clock);
  after.start('k', 10, (timer) => ({ label: 'after', timer }));

  t.notOk(after.accept(fired[0]!.timer), 'generations are unique across restarts');
});
