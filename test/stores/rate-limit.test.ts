import t from 'tap';
import type { RateLimits } from '../../src/domain/limits.js';
import { coordinationKinds, openTestCoordination, openTestWorkers } from '../helpers/stores.js';

const DEVELOPER: RateLimits = { perMinute: 100, perDay: 10_000 };
// 2030-01-01T00:00:00Z: a minute and a day boundary, so offsets below are easy to read.
const DAY_START = Date.UTC(2030, 0, 1);
const unique = (): string => `acct_${Math.random().toString(16).slice(2, 14)}`;

for (const kind of coordinationKinds()) {
  t.test(`rate limit (${kind})`, async (t) => {
    t.test('the first request of a window is admitted with the limit minus one remaining', async (t) => {
      const c = await openTestCoordination(t, kind);
      const now = DAY_START + 12_345;
      const d = await c.rateLimit(unique(), DEVELOPER, now);
      t.equal(d.allowed, true);
      t.equal(d.limit, 100);
      t.equal(d.remaining, 99);
      t.equal(d.resetAtMs, DAY_START + 60_000);
      t.equal(d.retryAfterSeconds, 0);
      t.same(d.day, { limit: 10_000, remaining: 9_999, resetAtMs: DAY_START + 86_400_000 });
    });

    t.test('the request after the per-minute limit is refused until the minute ends', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      const limits = { perMinute: 3, perDay: 100 };
      const at = DAY_START + 20_000;
      for (let i = 0; i < 3; i++) t.equal((await c.rateLimit(account, limits, at)).allowed, true);
      const refused = await c.rateLimit(account, limits, at + 500);
      t.equal(refused.allowed, false);
      t.equal(refused.window, 'minute');
      t.equal(refused.remaining, 0);
      t.equal(refused.retryAfterSeconds, 40); // 39.5 s left, rounded up
      t.equal(refused.resetAtMs, DAY_START + 60_000);
    });

    t.test('a new minute window admits again and its count starts over', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      const limits = { perMinute: 2, perDay: 100 };
      await c.rateLimit(account, limits, DAY_START + 1_000);
      await c.rateLimit(account, limits, DAY_START + 2_000);
      t.equal((await c.rateLimit(account, limits, DAY_START + 59_999)).allowed, false);
      const next = await c.rateLimit(account, limits, DAY_START + 60_000);
      t.equal(next.allowed, true);
      t.equal(next.remaining, 1);
      t.equal(next.resetAtMs, DAY_START + 120_000);
      t.equal(next.day.remaining, 97);
    });

    t.test('the per-day limit refuses across minute windows until the UTC day ends', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      const limits = { perMinute: 10, perDay: 4 };
      for (let minute = 0; minute < 4; minute++) {
        t.equal((await c.rateLimit(account, limits, DAY_START + minute * 60_000)).allowed, true);
      }
      const at = DAY_START + 10 * 60_000;
      const refused = await c.rateLimit(account, limits, at);
      t.equal(refused.allowed, false);
      t.equal(refused.window, 'day');
      t.equal(refused.retryAfterSeconds, (86_400_000 - 10 * 60_000) / 1000);
      t.equal(refused.minute.remaining, 10, 'the minute window itself still has room');
      t.equal(refused.remaining, 0, 'but the headers promise nothing the day would refuse');
      t.equal((await c.rateLimit(account, limits, DAY_START + 86_400_000)).allowed, true, 'the next UTC day admits again');
    });

    t.test('remaining reports the day window when it has fewer requests left', async (t) => {
      const c = await openTestCoordination(t, kind);
      const d = await c.rateLimit(unique(), { perMinute: 50, perDay: 3 }, DAY_START);
      t.equal(d.remaining, 2);
      t.equal(d.window, 'day');
    });

    t.test('refused requests are not counted against either window', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      const limits = { perMinute: 1, perDay: 3 };
      await c.rateLimit(account, limits, DAY_START);
      for (let i = 0; i < 5; i++) await c.rateLimit(account, limits, DAY_START + 1_000);
      const next = await c.rateLimit(account, limits, DAY_START + 60_000);
      t.equal(next.allowed, true);
      t.equal(next.day.remaining, 1);
    });

    t.test('ENTERPRISE custom limits are honoured as given', async (t) => {
      const c = await openTestCoordination(t, kind);
      const account = unique();
      const limits = { perMinute: 2_500, perDay: 1_000_000 };
      const d = await c.rateLimit(account, limits, DAY_START);
      t.equal(d.limit, 2_500);
      t.equal(d.remaining, 2_499);
      t.equal(d.day.limit, 1_000_000);
    });

    t.test('a zero limit refuses every request', async (t) => {
      const c = await openTestCoordination(t, kind);
      const d = await c.rateLimit(unique(), { perMinute: 0, perDay: 10 }, DAY_START);
      t.equal(d.allowed, false);
      t.equal(d.window, 'minute');
    });

    t.test('limits that are not non-negative integers are rejected', async (t) => {
      const c = await openTestCoordination(t, kind);
      await t.rejects(c.rateLimit(unique(), { perMinute: 1.5, perDay: 10 }, DAY_START), RangeError);
      await t.rejects(c.rateLimit(unique(), { perMinute: 1, perDay: -1 }, DAY_START), RangeError);
    });

    t.test('accounts are counted separately', async (t) => {
      const c = await openTestCoordination(t, kind);
      const limits = { perMinute: 1, perDay: 10 };
      const a = unique();
      await c.rateLimit(a, limits, DAY_START);
      t.equal((await c.rateLimit(a, limits, DAY_START)).allowed, false);
      t.equal((await c.rateLimit(unique(), limits, DAY_START)).allowed, true);
    });

    t.test('many concurrent checks from several workers never admit more than the limit', async (t) => {
      const workers = await openTestWorkers(t, kind, 3);
      const account = unique();
      const limits = { perMinute: 50, perDay: 70 };
      const now = DAY_START + 30_000;
      const checks = Array.from({ length: 300 }, (_, i) => workers[i % workers.length]!.rateLimit(account, limits, now));
      const decisions = await Promise.all(checks);
      const admitted = decisions.filter((d) => d.allowed);
      t.equal(admitted.length, 50);
      // Every admitted request saw a distinct count: remaining values 49..0, each once.
      t.same(admitted.map((d) => d.minute.remaining).sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i));
      const later = await Promise.all(
        Array.from({ length: 100 }, (_, i) => workers[i % workers.length]!.rateLimit(account, limits, now + 60_000)),
      );
      t.equal(later.filter((d) => d.allowed).length, 20, 'the day window caps the next minute at 70 in all');
    });
  });
}

t.test('both windows of an account share one Redis Cluster hash tag under the prefix', async (t) => {
  const { keys } = await import('../../src/adapters/stores/redis/keys.js');
  const k = keys('baton:');
  const minute = k.rateMinute('acct_1', 5);
  const day = k.rateDay('acct_1', 7);
  t.ok(minute.startsWith('baton:') && day.startsWith('baton:'));
  const tag = (key: string): string | undefined => /\{([^}]+)\}/.exec(key)?.[1];
  t.equal(tag(minute), 'acct_1');
  t.equal(tag(day), 'acct_1');
  t.not(minute, k.rateMinute('acct_1', 6));
});
