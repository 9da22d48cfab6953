/**
 * Messages of the RateLimitActor and the RateLimiter facade over it, so HTTP code never sees
 * actors. A store failure travels back as data and is rethrown by the facade with the original
 * name, code and message, so the pipeline still recognises "store unavailable" (503).
 */
import type { RateLimitDecision, RateLimits } from '../domain/limits.js';
import type { RateLimiter } from '../ports/limits.js';
import { ask } from './kit/ask.js';
import type { Ref } from './kit/nact.js';
import type { ReplyRef } from './kit/protocol.js';

export type RateLimitReply =
  | { readonly type: 'rateLimit.decided'; readonly decision: RateLimitDecision }
  | {
      readonly type: 'rateLimit.failed';
      readonly error: { readonly name: string; readonly message: string; readonly code: string | null };
    };

export type RateLimitCommand = {
  readonly type: 'rateLimit.check';
  readonly accountId: string;
  readonly limits: RateLimits;
  readonly replyTo: ReplyRef<RateLimitReply>;
};

export type RateLimitMessage = RateLimitCommand;

/** The rate-limit store failed behind the actor; carries the original error's identity. */
export class RateLimitStoreFailed extends Error {
  readonly code: string | undefined;
  readonly retryable = true;

  constructor(error: { readonly name: string; readonly message: string; readonly code: string | null }) {
    super(error.message);
    this.name = error.name;
    if (error.code !== null) this.code = error.code;
  }
}

/** A RateLimiter that asks the actor; `timeoutMs` bounds each check (AskTimeout beyond). */
export function createActorRateLimiter(ref: Ref<RateLimitCommand>, timeoutMs: number): RateLimiter {
  return {
    async check(accountId, limits) {
      const answer = await ask(ref, (replyTo) => ({ type: 'rateLimit.check', accountId, limits, replyTo }), timeoutMs);
      if (answer.type === 'rateLimit.failed') throw new RateLimitStoreFailed(answer.error);
      return answer.decision;
    },
  };
}
