/**
 * RateLimitActor (DESIGN §5): answers `rateLimit.check` from the shared counters through a
 * RateLimiter (the store plus the local refusal memory). It does not await a check before taking
 * the next message, so checks from many requests are in flight together and ioredis
 * auto-pipelining still batches them into shared round trips.
 *
 * The worker does not put it on the request path: bench/ measured the ask (a temporary nact
 * actor and a timer per check) against calling the limiter directly, and the direct call wins
 * (bench/RESULTS.md, "rate-limit check" scenarios). It stays for that comparison and for callers
 * that already live inside the actor system.
 */
import type { RateLimiter } from '../ports/limits.js';
import { reply } from './kit/ask.js';
import { defineActor, type ActorDefinition } from './kit/define.js';
import type { Ref } from './kit/nact.js';
import type { ActorRuntime } from './root-supervisor.js';
import { createActorRateLimiter, type RateLimitCommand, type RateLimitMessage } from './rate-limit-protocol.js';

export interface RateLimitActorOptions {
  readonly limiter: RateLimiter;
}

function describe(error: unknown): { name: string; message: string; code: string | null } {
  if (typeof error === 'object' && error !== null) {
    const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
    return {
      name: typeof name === 'string' ? name : 'Error',
      message: typeof message === 'string' ? message : String(error),
      code: typeof code === 'string' ? code : null,
    };
  }
  return { name: 'Error', message: String(error), code: null };
}

export function rateLimitActor(options: RateLimitActorOptions): ActorDefinition<null, RateLimitMessage> {
  const { limiter } = options;
  return defineActor<null, RateLimitMessage>({
    init: () => null,
    handle: (state, msg) => {
      switch (msg.type) {
        case 'rateLimit.check': {
          const replyTo = msg.replyTo;
          limiter.check(msg.accountId, msg.limits).then(
            (decision) => reply(replyTo, { type: 'rateLimit.decided', decision }),
            (error: unknown) => reply(replyTo, { type: 'rateLimit.failed', error: describe(error) }),
          );
          return state;
        }
      }
    },
  });
}

/** Spawns the RateLimitActor under `runtime`'s root; returns its ref and a RateLimiter facade. */
export function spawnRateLimitActor(
  runtime: Pick<ActorRuntime, 'spawnChild'>,
  options: RateLimitActorOptions & { readonly askTimeoutMs?: number },
  name = 'rate-limit',
): { readonly ref: Ref<RateLimitCommand>; readonly limiter: RateLimiter } {
  const ref = runtime.spawnChild(rateLimitActor(options), { name });
  return { ref, limiter: createActorRateLimiter(ref, options.askTimeoutMs ?? 2_000) };
}
