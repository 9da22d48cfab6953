import t from 'tap';
import { ask } from '../../src/actors/kit/ask.js';
import { defineActor } from '../../src/actors/kit/define.js';
import { AskTargetStopped } from '../../src/actors/kit/errors.js';
import { createManualClock } from '../../src/actors/kit/manual-clock.js';
import { dispatch, type Crash } from '../../src/actors/kit/nact.js';
import type { ReplyRef } from '../../src/actors/kit/protocol.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { recordingLogger, settle } from './fixtures/helpers.js';

type EchoMessage =
  | { readonly type: 'echo.say'; readonly text: string; readonly replyTo: ReplyRef<string> }
  | { readonly type: 'echo.crash' }
  | { readonly type: 'echo.arm' };

const echo = (stopped: string[]) =>
  defineActor<null, EchoMessage>({
    init: () => null,
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'echo.say':
          dispatch(msg.replyTo, msg.text);
          return state;
        case 'echo.crash':
          throw new Error('echo broke');
        case 'echo.arm':
          kit.timers.start('later', 60_000, () => ({ type: 'echo.crash' }));
          return state;
      }
    },
    afterStop: () => void stopped.push('echo'),
  });

t.test('the root supervisor answers a ping', async (t) => {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());

  const pong = await ask(runtime.root, (replyTo) => ({ type: 'root.ping', replyTo }), 1000);

  t.same(pong, { type: 'root.pong' });
});

t.test('a child spawned under the root replies through its protocol', async (t) => {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());
  const ref = runtime.spawnChild(echo([]), { name: 'echo' });

  const text = await ask(ref, (replyTo) => ({ type: 'echo.say', text: 'hi', replyTo }), 1000);

  t.equal(text, 'hi');
});

t.test('a child that spends its restart budget is stopped by the root and reported', async (t) => {
  const { logger, lines } = recordingLogger();
  const failed: Crash[] = [];
  const runtime = startActorSystem({
    logger,
    clock: createManualClock(),
    restart: { maxRestarts: 1, withinMs: 60_000 },
    onChildFailed: (crash) => failed.push(crash),
  });
  t.teardown(() => runtime.stop());
  const ref = runtime.spawnChild(echo([]), { name: 'echo' });

  dispatch(ref, { type: 'echo.crash' });
  dispatch(ref, { type: 'echo.crash' });
  await settle();

  t.equal(failed.length, 1);
  t.match(failed[0], { faultedPath: /\/root\/echo$/ });
  t.match(
    lines.map((line) => line.message),
    ['actor faulted; restarting it', 'actor faulted; restart budget exhausted, escalating', 'actor gave up after its restart budget; stopping it'],
  );
  await t.rejects(ask(ref, (replyTo) => ({ type: 'echo.say', text: 'x', replyTo }), 200), AskTargetStopped);
});

t.test('stopping the runtime stops every actor and cancels their timers', async (t) => {
  const clock = createManualClock();
  const stopped: string[] = [];
  const runtime = startActorSystem({ logger: recordingLogger().logger, clock });
  const ref = runtime.spawnChild(echo(stopped), { name: 'echo' });
  dispatch(ref, { type: 'echo.arm' });
  await settle();
  t.equal(clock.pending(), 1);

  await runtime.stop();

  t.equal(clock.pending(), 0);
  t.same(stopped, ['echo'], 'afterStop ran before stop() resolved');
});
