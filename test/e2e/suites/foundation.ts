/**
 * The foundation suite: health, accounts, keys, auth, permissions, expiry, allowlists,
 * revocation, activity. Run against one embedded worker (foundation.e2e) and against two workers
 * on real Postgres and Redis (foundation.real.e2e).
 */
import type { Test } from 'tap';
import { ADMIN_TOKEN, api, createAccountWithKey, type TestServer } from '../../helpers/server.js';

export function foundationSuite(t: Test, server: TestServer): void {
  t.test('health answers with status, version and a Unix timestamp', async (t) => {
    const res = await api(server, 'GET', '/health');
    t.equal(res.status, 200);
    t.equal(res.body.status, 'healthy');
    t.equal(res.body.version, '1.0.0');
    t.ok(Math.abs((res.body.timestamp as number) - Date.now() / 1000) < 60);
    t.match(res.headers.get('x-request-id'), /^req_/);
  });

  t.test('an operator creates an account and a key, and the key authenticates', async (t) => {
    const account = await api(server, 'POST', '/v1/accounts', { key: ADMIN_TOKEN, body: { name: 'Acme', tier: 'BUSINESS' } });
    t.equal(account.status, 201);
    t.match(account.body.id, /^acct_/);
    const created = await api(server, 'POST', '/v1/api-keys', {
      key: ADMIN_TOKEN,
      body: { name: 'ci', permissions: ['orchestrate', 'executions:read'], accountId: account.body.id },
    });
    t.equal(created.status, 201);
    t.match(created.body.key, /^mk_[0-9a-f]{32}$/);
    t.equal((created.body.key as string).length, 35);
    t.match(created.body.id, /^key_/);
    t.same(created.body.permissions, ['orchestrate', 'executions:read']);
    t.equal(created.body.isActive, true);
    t.ok(created.body.createdAt);
    const who = await api(server, 'GET', '/v1/auth/test', { key: created.body.key as string });
    t.equal(who.status, 200);
    t.same(who.body, {
      authenticated: true,
      keyId: created.body.id,
      keyName: 'ci',
      permissions: ['orchestrate', 'executions:read'],
      userId: account.body.id,
      accountTier: 'BUSINESS',
    });
  });

  t.test('x-api-key is accepted as well as Bearer', async (t) => {
    const { key } = await createAccountWithKey(server);
    const res = await api(server, 'GET', '/v1/auth/test', { headers: { 'x-api-key': key } });
    t.equal(res.status, 200);
  });

  t.test('a missing, malformed or unknown key is 401 UNAUTHORIZED with details', async (t) => {
    const cases: Array<Record<string, string>> = [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }, { 'x-api-key': `mk_${'0'.repeat(32)}` }];
    for (const headers of cases) {
      const res = await api(server, 'GET', '/v1/auth/test', { headers });
      t.equal(res.status, 401, JSON.stringify(headers));
      t.equal(res.body.error, 'UNAUTHORIZED');
      t.type(res.body.details, 'string');
      t.match(res.body.requestId, /^req_/);
    }
  });

  t.test('a key without the permission is 403 FORBIDDEN naming it', async (t) => {
    const { key } = await createAccountWithKey(server, 'DEVELOPER', ['agents:read']);
    const res = await api(server, 'GET', '/v1/api-keys', { key });
    t.equal(res.status, 403);
    t.equal(res.body.error, 'FORBIDDEN');
    t.equal(res.body.requiredPermission, 'api-keys:manage');
  });

  t.test('a key cannot create accounts; only the operator token can', async (t) => {
    const { key } = await createAccountWithKey(server);
    const res = await api(server, 'POST', '/v1/accounts', { key, body: { name: 'x', tier: 'DEVELOPER' } });
    t.equal(res.status, 403);
    t.equal(res.body.error, 'FORBIDDEN');
    const anonymous = await api(server, 'POST', '/v1/accounts', { body: { name: 'x', tier: 'DEVELOPER' } });
    t.equal(anonymous.status, 401);
  });

  t.test('custom limits and fee are refused below ENTERPRISE and defaulted on it', async (t) => {
    const refused = await api(server, 'POST', '/v1/accounts', {
      key: ADMIN_TOKEN,
      body: { name: 'x', tier: 'DEVELOPER', limits: { requestsPerMinute: 5 } },
    });
    t.equal(refused.status, 400);
    t.equal(refused.body.field, 'limits');
    const enterprise = await api(server, 'POST', '/v1/accounts', {
      key: ADMIN_TOKEN,
      body: { name: 'big', tier: 'ENTERPRISE', limits: { requestsPerMinute: 50000 }, feePercent: 2.5 },
    });
    t.equal(enterprise.status, 201);
    t.same(enterprise.body.limits, { requestsPerMinute: 50000, requestsPerDay: 10000000, concurrentExecutions: 100, queueSize: 1000 });
    t.equal(enterprise.body.feePercent, 2.5);
  });

  t.test('an expired key is 401 KEY_EXPIRED with expiredAt', async (t) => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { key } = await createAccountWithKey(server, 'DEVELOPER', ['*'], { expiresAt });
    t.equal((await api(server, 'GET', '/v1/auth/test', { key })).status, 200);
    await new Promise((r) => setTimeout(r, 1700));
    const res = await api(server, 'GET', '/v1/auth/test', { key });
    t.equal(res.status, 401);
    t.equal(res.body.error, 'KEY_EXPIRED');
    t.equal(res.body.expiredAt, expiresAt);
  });

  t.test('an expiry in the past is refused at creation', async (t) => {
    const res = await api(server, 'POST', '/v1/accounts', { key: ADMIN_TOKEN, body: { name: 'p', tier: 'DEVELOPER' } });
    const key = await api(server, 'POST', '/v1/api-keys', {
      key: ADMIN_TOKEN,
      body: { name: 'old', permissions: ['*'], accountId: res.body.id, expiresAt: '2001-01-01T00:00:00Z' },
    });
    t.equal(key.status, 400);
    t.equal(key.body.field, 'expiresAt');
  });

  t.test('an IP allowlist admits listed ranges and refuses other addresses with 403', async (t) => {
    const inside = await createAccountWithKey(server, 'ENTERPRISE', ['*'], { ipWhitelist: ['10.0.0.0/8', '127.0.0.0/8'] });
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: inside.key })).status, 200);
    const outside = await createAccountWithKey(server, 'ENTERPRISE', ['*'], { ipWhitelist: ['10.0.0.0/8', '2001:db8::/32'] });
    const refused = await api(server, 'GET', '/v1/auth/test', { key: outside.key });
    t.equal(refused.status, 403);
    t.equal(refused.body.error, 'FORBIDDEN');
    t.match(refused.body.details, /127\.0\.0\.1/);
  });

  t.test('an IP allowlist is refused on a non-ENTERPRISE account and must be valid', async (t) => {
    const { key } = await createAccountWithKey(server, 'BUSINESS');
    const res = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'x', permissions: ['orchestrate'], ipWhitelist: ['10.0.0.1'] } });
    t.equal(res.status, 400);
    t.equal(res.body.field, 'ipWhitelist');
    const ent = await createAccountWithKey(server, 'ENTERPRISE');
    const bad = await api(server, 'POST', '/v1/api-keys', { key: ent.key, body: { name: 'x', permissions: ['orchestrate'], ipWhitelist: ['10.0.0.300'] } });
    t.equal(bad.status, 400);
    t.equal(bad.body.field, 'ipWhitelist');
  });

  t.test('a key cannot grant permissions it does not hold', async (t) => {
    const { key } = await createAccountWithKey(server, 'DEVELOPER', ['api-keys:manage', 'orchestrate']);
    const escalate = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'root', permissions: ['*'] } });
    t.equal(escalate.status, 403);
    t.equal(escalate.body.requiredPermission, '*');
    const sideways = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'x', permissions: ['agents:write'] } });
    t.equal(sideways.status, 403);
    const subset = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'ok', permissions: ['orchestrate'] } });
    t.equal(subset.status, 201);
    const unknown = await api(server, 'POST', '/v1/api-keys', { key, body: { name: 'x', permissions: ['everything'] } });
    t.equal(unknown.status, 400);
    t.equal(unknown.body.field, 'permissions');
  });

  t.test('listing keys never shows a key value', async (t) => {
    const { key, keyId } = await createAccountWithKey(server);
    const res = await api<{ keys: Array<Record<string, unknown>> }>(server, 'GET', '/v1/api-keys', { key });
    t.equal(res.status, 200);
    t.equal(res.body.keys.length, 1);
    t.equal(res.body.keys[0]!.id, keyId);
    t.notOk('key' in res.body.keys[0]!);
    t.notOk(res.text.includes(key));
    t.ok('lastUsedAt' in res.body.keys[0]!);
  });

  t.test('a deactivated key is refused on the next request and works again once reactivated', async (t) => {
    const admin = await createAccountWithKey(server);
    const second = await api(server, 'POST', '/v1/api-keys', { key: admin.key, body: { name: 'worker', permissions: ['orchestrate'] } });
    const workerKey = second.body.key as string;
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: workerKey })).status, 200);
    const off = await api(server, 'PATCH', `/v1/api-keys/${second.body.id}`, { key: admin.key, body: { isActive: false } });
    t.equal(off.status, 200);
    t.equal(off.body.isActive, false);
    const refused = await api(server, 'GET', '/v1/auth/test', { key: workerKey });
    t.equal(refused.status, 401);
    t.equal(refused.body.error, 'UNAUTHORIZED');
    await api(server, 'PATCH', `/v1/api-keys/${second.body.id}`, { key: admin.key, body: { isActive: true } });
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: workerKey })).status, 200);
  });

  t.test('a deleted key is refused at once and is gone from the list', async (t) => {
    const admin = await createAccountWithKey(server);
    const second = await api(server, 'POST', '/v1/api-keys', { key: admin.key, body: { name: 'temp', permissions: ['orchestrate'] } });
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: second.body.key as string })).status, 200);
    const del = await api(server, 'DELETE', `/v1/api-keys/${second.body.id}`, { key: admin.key });
    t.equal(del.status, 200);
    t.same(del.body, { id: second.body.id, deleted: true });
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: second.body.key as string })).status, 401);
    const again = await api(server, 'DELETE', `/v1/api-keys/${second.body.id}`, { key: admin.key });
    t.equal(again.status, 404);
    t.equal(again.body.error, 'KEY_NOT_FOUND');
  });

  t.test("another account's key is invisible: 404 for update, delete and activity", async (t) => {
    const a = await createAccountWithKey(server);
    const b = await createAccountWithKey(server);
    for (const [method, path, body] of [
      ['PATCH', `/v1/api-keys/${a.keyId}`, { isActive: false }],
      ['DELETE', `/v1/api-keys/${a.keyId}`, undefined],
      ['GET', `/v1/api-keys/${a.keyId}/activity`, undefined],
    ] as const) {
      const res = await api(server, method, path, { key: b.key, body });
      t.equal(res.status, 404, `${method} ${path}`);
      t.equal(res.body.error, 'KEY_NOT_FOUND');
    }
    t.equal((await api(server, 'GET', '/v1/auth/test', { key: a.key })).status, 200);
  });

  t.test('activity reports counts and the most recent requests', async (t) => {
    const { key, keyId } = await createAccountWithKey(server);
    for (let i = 0; i < 3; i++) await api(server, 'GET', '/v1/auth/test', { key });
    await api(server, 'GET', '/v1/api-keys/key_missing/activity', { key });
    let activity = await api(server, 'GET', `/v1/api-keys/${keyId}/activity`, { key });
    const deadline = Date.now() + 5_000;
    while ((activity.body.usageStats as { last24h: number }).last24h < 4 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      activity = await api(server, 'GET', `/v1/api-keys/${keyId}/activity`, { key });
    }
    t.equal(activity.status, 200);
    t.equal(activity.body.keyId, keyId);
    const stats = activity.body.usageStats as { last24h: number; last7d: number; last30d: number };
    t.ok(stats.last24h >= 4);
    t.equal(stats.last7d, stats.last24h);
    t.type(activity.body.lastUsedAt, 'string');
    const recent = activity.body.recentRequests as Array<Record<string, unknown>>;
    const missing = recent.find((r) => r.endpoint === '/v1/api-keys/key_missing/activity');
    t.ok(missing, 'the 404 request is recorded');
    t.equal(missing!.statusCode, 404);
    t.equal(missing!.method, 'GET');
    t.equal(missing!.ipAddress, '127.0.0.1');
    const times = recent.map((r) => Date.parse(r.timestamp as string));
    t.same(times, [...times].sort((x, y) => y - x), 'newest first');
  });
}
