import t from 'tap';
import { ask, reply } from '../../src/actors/kit/ask.js';
import { defineActor, spawnActor } from '../../src/actors/kit/define.js';
import { AskTargetStopped, AskTimeout } from '../../src/actors/kit/errors.js';
import { start, stop } from '../../src/actors/kit/nact.js';
import type { ReplyRef } from '../../src/actors/kit/protocol.js';
import { settle } from './fixtures/helpers.js';

interface Sum {
  readonly type: 'calc.sum';
  readonly total: number;
}
type CalcMessage =
  | { readonly type: 'calc.add'; readonly a: number; readonly b: number; readonly replyTo: ReplyRef<Sum> }
  | { readonly type: 'calc.addLater'; readonly a: number; readonly b: number; readonly delayMs: number; readonly replyTo: ReplyRef<Sum> };

const lateReplies: Array<() => void> = [];

const calculator = defineActor<null, CalcMessage>({
  init: () => null,
  handle: (state, msg) => {
    switch (msg.type) {
      case 'calc.add':
        reply(msg.replyTo, { type: 'calc.sum', total: msg.a + msg.b });
        return state;
      case 'calc.addLater': {
        const send = (): void => reply(msg.replyTo, { type: 'calc.sum', total: msg.a + msg.b });
        setTimeout(() => {
          send();
          lateReplies.push(send);
        }, msg.delayMs);
        return state;
      }
    }
  },
});

t.test('ask resolves with the typed reply', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const calc = spawnActor(system, calculator);

  const sum = await ask(calc, (replyTo) => ({ type: 'calc.add', a: 2, b: 3, replyTo }), 1000);

  t.same(sum, { type: 'calc.sum', total: 5 });
});

t.test('ask times out with AskTimeout naming the message type and timeout, and the late reply is ignored', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const calc = spawnActor(system, calculator);

  const error = await ask(calc, (replyTo) => ({ type: 'calc.addLater', a: 1, b: 1, delayMs: 60, replyTo }), 20).then(
    () => undefined,
    (err: unknown) => err,
  );

  t.ok(error instanceof AskTimeout);
  t.match(error, { code: 'ASK_TIMEOUT', messageType: 'calc.addLater', timeoutMs: 20, retryable: true });
  await new Promise((resolve) => setTimeout(resolve, 80));
  t.equal(lateReplies.length, 1, 'the actor did reply, after the timeout');
  t.doesNotThrow(() => lateReplies[0]?.(), 'replying again to the expired reply-to is a silent no-op');
  await settle();
});

t.test('ask of a stopped actor rejects with AskTargetStopped', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const calc = spawnActor(system, calculator);
  stop(calc);
  await settle();

  await t.rejects(ask(calc, (replyTo) => ({ type: 'calc.add', a: 1, b: 1, replyTo }), 1000), AskTargetStopped);
});

t.test('ask refuses to run without a positive timeout', async (t) => {
  const system = start();
  t.teardown(() => stop(system));
  const calc = spawnActor(system, calculator);

  t.throws(() => ask(calc, (replyTo) => ({ type: 'calc.add', a: 1, b: 1, replyTo }), 0), RangeError);
  t.throws(() => ask(calc, (replyTo) => ({ type: 'calc.add', a: 1, b: 1, replyTo }), Number.NaN), RangeError);
});
