/**
 * Rate limits end to end on the embedded server: X-RateLimit-* headers on every authenticated
 * response, errors counted too, and the 429 body and headers once a DEVELOPER key's 100 requests
 * per minute are spent.
 */
import t from 'tap';
import { api, createAccountWithKey, startServer, type ApiResponse } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });

/** Waits, if needed, so the next few seconds stay inside one UTC minute window. */
async function startOfQuietMinute(): Promise<void> {
  const intoMinuteMs = Date.now() % 60_000;
  if (intoMinuteMs > 45_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinuteMs + 200));
}

const header = (res: ApiResponse, name: string): string | null => res.headers.get(name);

t.test('an authenticated response carries the per-minute limit, what remains and the reset time', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  await startOfQuietMinute();
  const res = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(res.status, 200);
  t.equal(header(res, 'x-ratelimit-limit'), '100');
  t.equal(header(res, 'x-ratelimit-remaining'), '99');
  const reset = Number(header(res, 'x-ratelimit-reset'));
  t.ok(Number.isInteger(reset), 'reset is whole Unix seconds');
  t.equal(reset % 60, 0, 'reset is the end of the UTC minute');
  t.ok(reset * 1000 > Date.now() && reset * 1000 <= Date.now() + 60_000, 'reset is within the next minute');
});

t.test('a BUSINESS key gets the BUSINESS per-minute limit', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  const res = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(header(res, 'x-ratelimit-limit'), '500');
});

t.test('an ENTERPRISE account gets its custom per-minute limit', async (t) => {
  const account = await api(server, 'POST', '/v1/accounts', {
    key: 'test-operator-token-0123456789',
    body: { name: 'big', tier: 'ENTERPRISE', limits: { requestsPerMinute: 2_345, requestsPerDay: 99_999 } },
  });
  t.equal(account.status, 201);
  const created = await api(server, 'POST', '/v1/api-keys', {
    key: 'test-operator-token-0123456789',
    body: { name: 'k', permissions: ['*'], accountId: account.body.id },
  });
  const res = await api(server, 'GET', '/v1/auth/test', { key: created.body.key as string });
  t.equal(header(res, 'x-ratelimit-limit'), '2345');
  t.equal(header(res, 'x-ratelimit-remaining'), '2344');
});

t.test('unauthenticated and public requests carry no rate-limit headers', async (t) => {
  const health = await api(server, 'GET', '/health');
  t.equal(header(health, 'x-ratelimit-limit'), null);
  const anonymous = await api(server, 'GET', '/v1/auth/test');
  t.equal(anonymous.status, 401);
  t.equal(header(anonymous, 'x-ratelimit-limit'), null);
});

t.test('error responses count, and the 101st request in a minute is refused with 429', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  await startOfQuietMinute();
  const remaining: number[] = [];
  for (let i = 0; i < 100; i++) {
    // Half are 404s from an authenticated caller: they count like successes.
    const res = i % 2 === 0 ? await api(server, 'GET', '/v1/auth/test', { key }) : await api(server, 'GET', '/v1/api-keys/key_missing/activity', { key });
    t.equal(res.status, i % 2 === 0 ? 200 : 404);
    remaining.push(Number(header(res, 'x-ratelimit-remaining')));
  }
  t.same(remaining, Array.from({ length: 100 }, (_, i) => 99 - i));

  const refused = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(refused.status, 429);
  t.equal(refused.body.error, 'RATE_LIMIT_EXCEEDED');
  t.equal(refused.body.limit, 100);
  t.equal(refused.body.remaining, 0);
  t.type(refused.body.requestId, 'string');
  const retryAfter = refused.body.retryAfter as number;
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retryAfter ${retryAfter} is whole seconds within the minute`);
  t.equal(header(refused, 'retry-after'), String(retryAfter));
  const resetAt = Date.parse(refused.body.resetAt as string);
  t.equal(new Date(resetAt).toISOString(), refused.body.resetAt, 'resetAt is ISO 8601');
  t.equal(resetAt % 60_000, 0, 'resetAt is the end of the UTC minute');
  t.equal(header(refused, 'x-ratelimit-limit'), '100');
  t.equal(header(refused, 'x-ratelimit-remaining'), '0');
  t.equal(Number(header(refused, 'x-ratelimit-reset')) * 1000, resetAt);
});

t.test('another account of the same tier is not affected by an exhausted one', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  const res = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(res.status, 200);
});

t.test('a request refused for a missing permission still counts and carries the headers', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER', ['agents:read']);
  await startOfQuietMinute();
  const first = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(header(first, 'x-ratelimit-remaining'), '99');
  const refused = await api(server, 'GET', '/v1/api-keys', { key });
  t.equal(refused.status, 403);
  t.equal(header(refused, 'x-ratelimit-remaining'), '98');
  const after = await api(server, 'GET', '/v1/auth/test', { key });
  t.equal(header(after, 'x-ratelimit-remaining'), '97');
});
