import t from 'tap';
import { ask, reply } from '../../src/actors/kit/ask.js';
import { defineActor, spawnActor } from '../../src/actors/kit/define.js';
import { AskTargetStopped } from '../../src/actors/kit/errors.js';
import { createManualClock } from '../../src/actors/kit/manual-clock.js';
import { Directive, dispatch, start, stop, type Crash } from '../../src/actors/kit/nact.js';
import type { ReplyRef } from '../../src/actors/kit/protocol.js';
import { failFast, restartBudget, type ActorFailure } from '../../src/actors/kit/supervision.js';
import { recordingLogger, settle } from './fixtures/helpers.js';

interface Count {
  readonly type: 'counter.count';
  readonly value: number;
}
type CounterMessage =
  | { readonly type: 'counter.increment' }
  | { readonly type: 'counter.crash' }
  | { readonly type: 'counter.get'; readonly replyTo: ReplyRef<Count> };

function counter(inits: { count: number }) {
  return defineActor<number, CounterMessage>({
    init: () => {
      inits.count += 1;
      return 0;
    },
    handle: (value, msg) => {
      switch (msg.type) {
        case 'counter.increment':
          return value + 1;
        case 'counter.crash':
          throw new Error('boom');
        case 'counter.get':
          reply(msg.replyTo, { type: 'counter.count', value });
          return value;
      }
    },
  });
}

type ParentMessage = { readonly type: 'parent.noop' };
const parentActor = defineActor<null, ParentMessage>({ init: () => null, handle: (state) => state });

t.test('the restart budget restarts a faulting actor with fresh state', async (t) => {
  const { logger, lines } = recordingLogger();
  const system = start();
  t.teardown(() => stop(system));
  const inits = { count: 0 };
  const ref = spawnActor(system, counter(inits), {
    onCrash: restartBudget({ maxRestarts: 2, withinMs: 1000, logger, clock: createManualClock() }),
  });

  dispatch(ref, { type: 'counter.increment' });
  dispatch(ref, { type: 'counter.crash' });
  const count = await ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 1000);

  t.equal(count.value, 0, 'state was rebuilt');
  t.equal(inits.count, 2);
  t.match(lines, [{ level: 'warn', message: 'actor faulted; restarting it', context: { messageType: 'counter.crash' } }]);
});

t.test('the restart budget restarts N times within the window, then escalates to the parent', async (t) => {
  const { logger, lines } = recordingLogger();
  const system = start();
  t.teardown(() => stop(system));
  const escalations: Crash[] = [];
  const parent = spawnActor(system, parentActor, {
    onCrash: (crash) => {
      escalations.push(crash);
      return Directive.stopChild;
    },
  });
  const inits = { count: 0 };
  const child = spawnActor(parent, counter(inits), {
    name: 'child',
    onCrash: restartBudget({ maxRestarts: 2, withinMs: 1000, logger, clock: createManualClock() }),
  });

  for (let i = 0; i < 3; i++) dispatch(child, { type: 'counter.crash' });
  await settle();

  t.equal(inits.count, 3, 'started once, restarted twice');
  t.equal(escalations.length, 1);
  t.match(escalations[0], { faultedPath: /\/child$/, message: { type: 'counter.crash' } });
  t.ok(escalations[0]?.child, 'the parent sees the fault as its child’s');
  t.match(lines.at(-1), { level: 'error', message: 'actor faulted; restart budget exhausted, escalating' });
  await t.rejects(ask(child, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped, 'the parent stopped it');
});

t.test('faults older than the window do not count against the restart budget', async (t) => {
  const clock = createManualClock();
  const system = start();
  t.teardown(() => stop(system));
  const inits = { count: 0 };
  const ref = spawnActor(system, counter(inits), {
    onCrash: restartBudget({ maxRestarts: 1, withinMs: 1000, logger: recordingLogger().logger, clock, onExhausted: 'stop' }),
  });

  for (let i = 0; i < 3; i++) {
    dispatch(ref, { type: 'counter.crash' });
    await settle();
    clock.advance(1001);
  }

  t.equal(inits.count, 4, 'each fault was restarted');
  const count = await ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 1000);
  t.equal(count.value, 0);
});

t.test('an exhausted restart budget configured to stop stops the actor', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const inits = { count: 0 };
  const ref = spawnActor(system, counter(inits), {
    onCrash: restartBudget({ maxRestarts: 1, withinMs: 1000, logger: recordingLogger().logger, clock: createManualClock(), onExhausted: 'stop' }),
  });

  dispatch(ref, { type: 'counter.crash' });
  dispatch(ref, { type: 'counter.crash' });
  await settle();

  t.equal(inits.count, 2);
  await t.rejects(ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped);
});

t.test('failFast stops a faulting actor without restarting it and reports the failure', async (t) => {
  const { logger, lines } = recordingLogger();
  const system = start();
  t.teardown(() => stop(system));
  const failures: ActorFailure[] = [];
  const inits = { count: 0 };
  const ref = spawnActor(system, counter(inits), {
    name: 'exec-1',
    onCrash: failFast({ logger, onFailed: (failure) => failures.push(failure) }),
  });

  dispatch(ref, { type: 'counter.crash' });
  dispatch(ref, { type: 'counter.increment' });
  await settle();

  t.equal(inits.count, 1, 'never restarted');
  t.equal(failures.length, 1);
  t.match(failures[0], { path: /\/exec-1$/, messageType: 'counter.crash', error: { message: 'boom' } });
  t.match(lines, [{ level: 'error', message: 'actor faulted; stopping it (fail-fast)' }]);
  await t.rejects(ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped);
});

t.test('failFast on a parent stops it and its children when a child escalates', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const failures: ActorFailure[] = [];
  const parent = spawnActor(system, parentActor, {
    onCrash: failFast({ logger: recordingLogger().logger, onFailed: (failure) => failures.push(failure) }),
  });
  const child = spawnActor(parent, counter({ count: 0 }), { name: 'agent-call' });

  dispatch(child, { type: 'counter.crash' });
  await settle();

  t.equal(failures.length, 1);
  t.match(failures[0], { path: /\/agent-call$/ });
  await t.rejects(ask(child, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped);
});

t.test('a top-level actor that escalates is stopped without reaching the console', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const logged: unknown[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => void logged.push(args);
  t.teardown(() => {
    console.log = original;
  });
  const ref = spawnActor(system, counter({ count: 0 }), { onCrash: () => Directive.escalate });

  dispatch(ref, { type: 'counter.crash' });
  await settle();

  t.same(logged, []);
  await t.rejects(ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped);
});

t.test('a policy that throws stops the actor', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const ref = spawnActor(system, counter({ count: 0 }), {
    onCrash: () => {
      throw new Error('bad policy');
    },
  });

  dispatch(ref, { type: 'counter.crash' });
  await settle();

  await t.rejects(ask(ref, (replyTo) => ({ type: 'counter.get', replyTo }), 200), AskTargetStopped);
});
