/**
 * The request pipeline (src/http/pipeline.ts) in process: a route handler called with fake uWS
 * request and response objects, the real Authenticator over an in-memory key store, and the real
 * rate-limit gate over a counting limiter. Each test looks at what the client receives (status,
 * headers, body, or nothing at all), what the route did, and the usage recorded.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { Type } from '@sinclair/typebox';
import { routeHandler, type PipelineDeps } from '../../src/http/pipeline.js';
import { rateLimitGate } from '../../src/http/rate-limit-gate.js';
import { json, route, type RequestContext } from '../../src/http/route.js';
import { compile } from '../../src/schemas/validation.js';
import { Authenticator } from '../../src/services/auth/authenticator.js';
import { KeyCache } from '../../src/services/auth/key-cache.js';
import { createKeyHasher, generateKeyValue } from '../../src/services/auth/key-material.js';
import { boundPort } from '../../src/ports/deadline.js';
import type { ApiKeyStore } from '../../src/ports/api-keys.js';
import type { ApiKeyRecord, KeyWithAccount } from '../../src/domain/api-keys.js';
import type { UsageEntry } from '../../src/domain/usage.js';
import { createManualClock } from '../../src/actors/kit/index.js';
import { CountingRateLimiter } from '../helpers/counting-rate-limiter.js';
import { callHandler, type FakeResponse } from '../helpers/fake-uws.js';
import { eventually, gate } from '../actors/fixtures/helpers.js';

const hash = createKeyHasher(null);
const BODY_TIMEOUT_MS = 40;

interface Setup {
  readonly key: string;
  /** Notes the route stored, in order. */
  readonly stored: string[];
  readonly usage: UsageEntry[];
  readonly limiter: CountingRateLimiter;
  /** POSTs `{ note }` (or `body` as given) to /v1/notes with `headers`. */
  post(body: string | null, headers?: Readonly<Record<string, string>>): FakeResponse;
  /** The route's context of the last request that reached it. */
  lastContext(): RequestContext | null;
  hold(): { open(): void };
}

function setup(
  t: Test,
  options: { readonly key?: Partial<ApiKeyRecord>; readonly perMinute?: number; readonly keyStore?: (store: ApiKeyStore) => ApiKeyStore } = {},
): Setup {
  const clock = createManualClock();
  const key = generateKeyValue();
  const row: KeyWithAccount = {
    key: {
      id: 'key_1',
      accountId: 'acct_1',
      name: 'k',
      keyHash: hash(key),
      permissions: ['orchestrate'],
      createdAt: new Date(clock.now() - 1000),
      expiresAt: null,
      isActive: true,
      ipWhitelist: null,
      lastUsedAt: null,
      ...options.key,
    },
    account: {
      id: 'acct_1',
      name: 'a',
      tier: 'ENTERPRISE',
      limits: { requestsPerMinute: options.perMinute ?? 100, requestsPerDay: 10_000, concurrentExecutions: 5, queueSize: 5 },
      feeBasisPoints: null,
      createdAt: new Date(clock.now() - 1000),
    },
  };
  const memoryKeys = { findByHash: async (h: string) => (h === row.key.keyHash ? row : null) } as unknown as ApiKeyStore;
  const keys = options.keyStore?.(memoryKeys) ?? memoryKeys;
  const authenticator = new Authenticator({ keys, cache: new KeyCache({ max: 10, ttlMs: 60_000 }), hash, adminToken: null, now: clock.now });
  const limiter = new CountingRateLimiter(clock.now);
  const usage: UsageEntry[] = [];
  const stored: string[] = [];
  let last: RequestContext | null = null;
  let held: Promise<void> | null = null;
  const deps: PipelineDeps = {
    authenticator,
    usage: { record: (entry) => usage.push(entry) },
    logger: pino({ level: 'silent' }),
    body: { maxBytes: 1024, timeoutMs: BODY_TIMEOUT_MS },
    trustedProxies: null,
    gate: rateLimitGate(limiter, { rateLimitRejected: () => undefined }),
    sseMaxBufferedBytes: 1024,
  };
  const notes = route({
    method: 'post',
    path: '/v1/notes',
    access: { kind: 'permission', permission: 'orchestrate' },
    body: compile(Type.Object({ note: Type.String() })),
    handle: async (ctx) => {
      last = ctx;
      if (held !== null) await held;
      stored.push(ctx.body.note);
      return json(201, { stored: ctx.body.note });
    },
  });
  const handler = routeHandler(notes, deps);
  return {
    key,
    stored,
    usage,
    limiter,
    post: (body, headers = { authorization: `Bearer ${key}` }) => {
      const res = callHandler(handler, { method: 'post', url: '/v1/notes', headers: { 'content-type': 'application/json', ...headers } });
      if (body !== null) res.send(body, true);
      return res;
    },
    lastContext: () => last,
    hold: () => {
      const g = gate();
      held = g.promise;
      return g;
    },
  };
}

function bodyOf(res: FakeResponse): Record<string, unknown> {
  return JSON.parse(res.written!.body) as Record<string, unknown>;
}

async function answered(res: FakeResponse): Promise<void> {
  await eventually(() => res.written !== null);
}

t.test('an admitted request gets the route\'s reply with rate-limit headers, and its usage is recorded', async (t) => {
  const api = setup(t);
  const res = api.post(JSON.stringify({ note: 'hello' }));
  await answered(res);
  t.equal(res.written!.status, 201);
  t.same(bodyOf(res), { stored: 'hello' });
  t.equal(res.written!.headers['X-RateLimit-Remaining'], '99');
  t.same(api.stored, ['hello']);
  t.match(api.usage, [{ keyId: 'key_1', endpoint: '/v1/notes', method: 'POST', statusCode: 201, ipAddress: '203.0.113.9' }]);
  t.same(res.misuse, [], 'every write corked');
});

t.test('a client that goes away halfway through its body gets nothing written and the route never runs', async (t) => {
  const api = setup(t);
  const res = api.post(null);
  t.ok(res.hasAbortHandler, 'onAborted is registered before the handler returns to uWS');
  res.send('{"note": "hal', false);
  res.abort();
  // The body never ends: the read gives up at its timeout, and the 408 must not be written.
  await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS * 3));
  t.equal(res.written, null);
  t.same(res.misuse, [], 'the aborted response was not touched');
  t.same(api.stored, []);
  t.equal(api.lastContext(), null, 'the route was never called');
  t.equal(api.limiter.checks, 0, 'nor was the request counted');
});

t.test('a client that goes away while the route works: its signal aborts and the reply is not written', async (t) => {
  const api = setup(t);
  const hold = api.hold();
  const res = api.post(JSON.stringify({ note: 'late' }));
  await eventually(() => api.lastContext() !== null);
  const signal = api.lastContext()!.signal;
  t.equal(signal.aborted, false);
  res.abort();
  t.equal(signal.aborted, true, 'the route can stop its work');
  hold.open();
  await eventually(() => api.usage.length === 1);
  t.equal(res.written, null);
  t.same(res.misuse, []);
});

t.test('a request without a key is refused 401 UNAUTHORIZED and the route never runs', async (t) => {
  const api = setup(t);
  const res = api.post(JSON.stringify({ note: 'x' }), {});
  await answered(res);
  t.equal(res.written!.status, 401);
  t.match(bodyOf(res), { error: 'UNAUTHORIZED', requestId: res.written!.headers['X-Request-Id'] });
  t.same(api.stored, []);
  t.same(api.usage, [], 'nobody to record it against');
});

t.test('an expired key is refused 401 KEY_EXPIRED', async (t) => {
  const api = setup(t, { key: { expiresAt: new Date(Date.UTC(2023, 0, 1)) } });
  const res = api.post(JSON.stringify({ note: 'x' }));
  await answered(res);
  t.equal(res.written!.status, 401);
  t.match(bodyOf(res), { error: 'KEY_EXPIRED' });
  t.same(api.stored, []);
});

t.test('a key without the route\'s permission is refused 403 FORBIDDEN, and the request still counts', async (t) => {
  const api = setup(t, { key: { permissions: ['agents:read'] } });
  const res = api.post(JSON.stringify({ note: 'x' }));
  await answered(res);
  t.equal(res.written!.status, 403);
  t.match(bodyOf(res), { error: 'FORBIDDEN', requiredPermission: 'orchestrate' });
  t.equal(res.written!.headers['X-RateLimit-Remaining'], '99', 'counted against the rate limit');
  t.match(api.usage, [{ statusCode: 403 }]);
  t.same(api.stored, []);
});

t.test('a request over the rate limit is refused 429 RATE_LIMIT_EXCEEDED with Retry-After, and the route never runs', async (t) => {
  const api = setup(t, { perMinute: 2 });
  for (const note of ['one', 'two']) await answered(api.post(JSON.stringify({ note })));
  const res = api.post(JSON.stringify({ note: 'three' }));
  await answered(res);
  t.equal(res.written!.status, 429);
  t.match(bodyOf(res), { error: 'RATE_LIMIT_EXCEEDED', window: 'minute', limit: 2, remaining: 0 });
  t.equal(res.written!.headers['Retry-After'], '60', 'the manual clock stands at the start of a minute');
  t.equal(res.written!.headers['X-RateLimit-Remaining'], '0');
  t.same(api.stored, ['one', 'two']);
  t.match(api.usage.map((u) => u.statusCode), [201, 201, 429]);
});

t.test('a key lookup past the store deadline is answered 503 SERVICE_UNAVAILABLE with Retry-After', async (t) => {
  const stalled = { findByHash: () => new Promise<never>(() => undefined) } as unknown as ApiKeyStore;
  const api = setup(t, { keyStore: () => boundPort(stalled, 'apiKeys', ['findByHash'], 20) });
  const res = api.post(JSON.stringify({ note: 'x' }));
  await answered(res);
  t.equal(res.written!.status, 503);
  t.match(bodyOf(res), { error: 'SERVICE_UNAVAILABLE' });
  t.equal(res.written!.headers['Retry-After'], '2');
  t.same(api.stored, []);
});
