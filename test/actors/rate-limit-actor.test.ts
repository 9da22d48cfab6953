import t from 'tap';
import { spawnRateLimitActor } from '../../src/actors/rate-limit-actor.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { isStoreUnavailable } from '../../src/http/unavailable.js';
import { directRateLimiter } from '../../src/services/limits/rate-limiter.js';
import { memoryCoordination } from '../../src/adapters/stores/redis/index.js';
import { recordingLogger } from './fixtures/helpers.js';

t.test('checks through the RateLimitActor admit exactly the limit, even when sent together', async (t) => {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());
  const { limiter } = spawnRateLimitActor(runtime, { limiter: directRateLimiter(memoryCoordination()) });
  const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.check('acct_a', { perMinute: 20, perDay: 1_000 })));
  t.equal(decisions.filter((d) => d.allowed).length, 20);
  t.ok((decisions.find((d) => !d.allowed)?.retryAfterSeconds ?? 0) >= 1, 'a refusal says when to retry');
});

t.test('a store failure behind the actor is rethrown so the pipeline still answers 503', async (t) => {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());
  const failing = {
    check: () => Promise.reject(Object.assign(new Error('Connection is closed.'), { code: 'ECONNRESET' })),
  };
  const { limiter } = spawnRateLimitActor(runtime, { limiter: failing });
  const error = await limiter.check('acct_a', { perMinute: 1, perDay: 1 }).then(
    () => null,
    (e: unknown) => e,
  );
  t.equal(isStoreUnavailable(error), true);
  t.match(error, { code: 'ECONNRESET', message: 'Connection is closed.' });
});
