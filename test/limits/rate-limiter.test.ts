import t from 'tap';
import { directRateLimiter } from '../../src/services/limits/rate-limiter.js';
import { rateLimitGate } from '../../src/http/rate-limit-gate.js';
import { ApiError } from '../../src/domain/errors.js';
import type { Principal } from '../../src/services/auth/principal.js';
import type { Account } from '../../src/domain/accounts.js';
import type { Coordination } from '../../src/ports/coordination.js';
import type { RateLimits } from '../../src/domain/limits.js';
import { memoryCoordination } from '../../src/adapters/stores/redis/index.js';

const DAY_START = Date.UTC(2030, 0, 1);

/** Memory coordination that counts how often the store was asked. */
function countingStore(): Pick<Coordination, 'rateLimit'> & { calls: number } {
  const inner = memoryCoordination();
  const store = {
    calls: 0,
    rateLimit(accountId: string, limits: RateLimits, nowMs: number) {
      store.calls++;
      return inner.rateLimit(accountId, limits, nowMs);
    },
  };
  return store;
}

function keyPrincipal(account: Partial<Account> = {}): Principal {
  const full: Account = { id: 'acct_1', name: 'a', tier: 'DEVELOPER', limits: null, feeBasisPoints: null, createdAt: new Date(0), ...account };
  return {
    kind: 'key',
    account: full,
    key: {
      id: 'key_1',
      accountId: full.id,
      name: 'k',
      keyHash: 'h',
      permissions: ['*'],
      createdAt: new Date(0),
      expiresAt: null,
      isActive: true,
      ipWhitelist: null,
      lastUsedAt: null,
    },
  };
}

t.test('a refused account is answered locally until its window ends, then asked of the store again', async (t) => {
  const store = countingStore();
  let now = DAY_START + 1_000;
  const limiter = directRateLimiter(store, { now: () => now });
  const limits = { perMinute: 2, perDay: 100 };
  await limiter.check('a', limits);
  await limiter.check('a', limits);
  t.equal((await limiter.check('a', limits)).allowed, false);
  const callsAtRefusal = store.calls;
  now += 30_000;
  const cached = await limiter.check('a', limits);
  t.equal(cached.allowed, false);
  t.equal(cached.retryAfterSeconds, 29, 'retryAfter counts down from the current time');
  t.equal(store.calls, callsAtRefusal, 'no store call while refused');
  now = DAY_START + 60_000;
  t.equal((await limiter.check('a', limits)).allowed, true);
  t.equal(store.calls, callsAtRefusal + 1);
});

t.test('a refusal remembered under other limits does not apply once the limits change', async (t) => {
  const store = countingStore();
  const limiter = directRateLimiter(store, { now: () => DAY_START });
  await limiter.check('a', { perMinute: 1, perDay: 100 });
  t.equal((await limiter.check('a', { perMinute: 1, perDay: 100 })).allowed, false);
  t.equal((await limiter.check('a', { perMinute: 5, perDay: 100 })).allowed, true);
});

t.test('the gate returns the three X-RateLimit headers for an admitted request', async (t) => {
  const gate = rateLimitGate(directRateLimiter(memoryCoordination(), { now: () => DAY_START + 5_000 }), { rateLimitRejected: () => undefined });
  t.same(await gate.admit(keyPrincipal()), {
    'X-RateLimit-Limit': '100',
    'X-RateLimit-Remaining': '99',
    'X-RateLimit-Reset': String((DAY_START + 60_000) / 1000),
  });
});

t.test('the gate refuses over the day limit with the day window in the 429 body', async (t) => {
  const rejected: string[] = [];
  const gate = rateLimitGate(directRateLimiter(memoryCoordination(), { now: () => DAY_START + 3_600_000 }), {
    rateLimitRejected: (tier, window) => void rejected.push(`${tier}/${window}`),
  });
  const principal = keyPrincipal({
    tier: 'ENTERPRISE',
    limits: { requestsPerMinute: 10, requestsPerDay: 1, concurrentExecutions: 1, queueSize: 1 },
  });
  await gate.admit(principal);
  const error = await gate.admit(principal).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(error instanceof ApiError);
  const api = error as ApiError;
  t.equal(api.status, 429);
  t.equal(api.code, 'RATE_LIMIT_EXCEEDED');
  t.match(api.extra, { limit: 1, remaining: 0, window: 'day', resetAt: new Date(DAY_START + 86_400_000).toISOString(), retryAfter: 82_800 });
  t.equal(api.headers['Retry-After'], '82800');
  t.equal(api.headers['X-RateLimit-Limit'], '10', 'headers stay on the per-minute window');
  t.equal(api.headers['X-RateLimit-Remaining'], '0');
  t.same(rejected, ['ENTERPRISE/day']);
});

t.test('the gate lets operator and anonymous principals through without counting', async (t) => {
  const gate = rateLimitGate(directRateLimiter(memoryCoordination()), { rateLimitRejected: () => undefined });
  t.equal(await gate.admit({ kind: 'operator' }), null);
  t.equal(await gate.admit({ kind: 'anonymous' }), null);
});

t.test('a store failure reaches the caller unchanged', async (t) => {
  const failing: Pick<Coordination, 'rateLimit'> = {
    rateLimit: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
  };
  const gate = rateLimitGate(directRateLimiter(failing), { rateLimitRejected: () => undefined });
  await t.rejects(gate.admit(keyPrincipal()), { code: 'ECONNREFUSED' });
});
