/** Request/response with actors: an explicit reply-to reference and a mandatory timeout. */
import { AskTargetStopped, AskTimeout } from './errors.js';
import { dispatch, query, type Ref } from './nact.js';
import type { Message, RepliesOf, ReplyRef } from './protocol.js';

/**
 * Sends `build(replyTo)` to `ref` and resolves with the first value sent to `replyTo`; rejects
 * with `AskTimeout` after `timeoutMs` (later replies are dropped) or `AskTargetStopped`.
 * `Reply` defaults to the reply types the protocol declares; annotate `replyTo` to narrow it.
 */
// `const Msg`: without it the `type` literal in `build`'s result widens to string while Msg is
// still being inferred from `ref`, and every call fails to typecheck.
export function ask<const Msg extends Message, Reply = RepliesOf<Msg>>(
  ref: Ref<Msg>,
  build: (replyTo: ReplyRef<Reply>) => NoInfer<Msg>,
  timeoutMs: number,
): Promise<Reply> {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`ask needs a positive finite timeoutMs, got ${timeoutMs}`);
  }
  return new Promise<Reply>((resolve, reject) => {
    let messageType = 'unknown';
    let timedOut = false;
    // Our own timer, so the timeout error is typed; nact's query timer then only frees its temp ref.
    const timer = setTimeout(() => {
      timedOut = true;
      reject(new AskTimeout(messageType, timeoutMs));
    }, timeoutMs);
    const pending = query<Msg, Reply>(
      ref,
      (replyTo) => {
        const msg = build(replyTo);
        messageType = msg.type;
        return msg;
      },
      Math.ceil(timeoutMs) + 1,
    );
    pending.then(
      (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!timedOut) reject(new AskTargetStopped(messageType, { cause: err }));
      },
    );
  });
}

/** Sends a reply; a reply to an ask that already timed out goes nowhere. */
export function reply<Reply>(replyTo: ReplyRef<Reply>, value: NoInfer<Reply>): void {
  dispatch(replyTo, value);
}
