/**
 * A store that stops answering does not hold requests (BATON_STORE_DEADLINE_MS, README "Operating
 * it"): with a private redis-server paused (SIGSTOP: connections stay open, nothing answers) or
 * killed, and with Postgres behind a proxy that stops forwarding, authenticated requests answer
 * 503 SERVICE_UNAVAILABLE with Retry-After within the deadline, /health still answers, and
 * requests succeed again once the store is back. Needs DATABASE_URL and redis-server.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { realDatabaseUrl } from '../helpers/env.js';
import { hasRedisServer, startRedis, stopRedis } from '../helpers/redis-server.js';
import { ADMIN_TOKEN, api, createAccountWithKey, freePort, realServersAvailable, startServer, type TestServer } from '../helpers/server.js';

/** Far above the 2 s default deadline: a behaviour bound, not a benchmark. */
const PROMPT_MS = 6_000;

/** A TCP proxy to Postgres that can stop forwarding (a hung server or a dropped network path). */
interface FreezableProxy {
  readonly port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

async function freezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  let frozen = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (data) => (frozen ? held.push(() => to.write(data)) : to.write(data)));
    from.on('end', () => (frozen ? held.push(() => to.end()) : to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    freeze: () => void (frozen = true),
    thaw() {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

async function eventually(server: TestServer, key: string, path: string, status: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  let seen = 0;
  while (Date.now() < deadline) {
    seen = (await api(server, 'GET', path, { key })).status;
    if (seen === status) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

if (realDatabaseUrl === null || !realServersAvailable() || !hasRedisServer()) {
  t.pass('skipped: needs DATABASE_URL, REDIS_URL, redis-server and redis-cli');
} else {
  const database = new URL(realDatabaseUrl);
  const proxy = await freezableProxy({ host: database.hostname, port: Number(database.port || 5432) });
  t.teardown(() => proxy.close());
  const proxiedUrl = new URL(realDatabaseUrl);
  proxiedUrl.hostname = '127.0.0.1';
  proxiedUrl.port = String(proxy.port);

  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  // Also on a failed start below: a test that dies leaves no redis-server behind.
  const killRedis = (): void => void redis.kill('SIGKILL');
  process.once('exit', killRedis);
  t.teardown(async () => {
    redis.kill('SIGCONT');
    await stopRedis(redis);
    process.off('exit', killRedis);
  });
  const server = await startServer(t, {
    mode: 'real',
    workers: 1,
    env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, DATABASE_URL: proxiedUrl.toString() },
  });
  const { key } = await createAccountWithKey(server, 'BUSINESS');

  /** Several authenticated requests at once: each a prompt 503 with Retry-After; /health still 200. */
  async function assertPromptUnavailable(t: Test, path: string): Promise<void> {
    const answers = await Promise.all(Array.from({ length: 5 }, () => timed(api(server, 'GET', path, { key }))));
    for (const { value, ms } of answers) {
      t.equal(value.status, 503, `${path} answers 503`);
      t.equal(value.body.error, 'SERVICE_UNAVAILABLE');
      t.ok(Number(value.headers.get('retry-after')) >= 1, 'with a Retry-After header');
      t.ok(ms < PROMPT_MS, `answered in ${ms} ms`);
    }
    const health = await timed(api(server, 'GET', '/health'));
    t.equal(health.value.status, 200, '/health still answers');
    t.ok(health.ms < 1_000, `/health answered in ${health.ms} ms`);
  }

  t.test('Redis paused: requests that need it answer 503 promptly, then recover', async (t) => {
    t.equal((await api(server, 'GET', '/v1/auth/test', { key })).status, 200);
    redis.kill('SIGSTOP');
    try {
      await assertPromptUnavailable(t, '/v1/auth/test');
    } finally {
      redis.kill('SIGCONT');
    }
    t.equal(await eventually(server, key, '/v1/auth/test', 200), 200, 'served again once Redis answers');
  });

  t.test('Redis stopped: requests answer 503 promptly, then recover after a restart', async (t) => {
    await stopRedis(redis);
    await assertPromptUnavailable(t, '/v1/auth/test');
    // The operator is not rate limited: what needs only Postgres goes on.
    const account = await api(server, 'POST', '/v1/accounts', { key: ADMIN_TOKEN, body: { name: 'during the outage', tier: 'DEVELOPER' } });
    t.equal(account.status, 201, 'an operator request that needs only Postgres is served');
    redis = await startRedis(redisPort);
    t.equal(await eventually(server, key, '/v1/auth/test', 200), 200, 'served again without a restart of Baton');
  });

  t.test('Postgres not answering: requests that need it answer 503 promptly, then recover', async (t) => {
    const missing = '/v1/executions/exec_000000000000000000000000';
    t.equal((await api(server, 'GET', missing, { key })).status, 404);
    proxy.freeze();
    try {
      await assertPromptUnavailable(t, missing);
      // The key was just used on this worker: its cached lookup and Redis suffice.
      const cached = await timed(api(server, 'GET', '/v1/auth/test', { key }));
      t.equal(cached.value.status, 200, 'a request that needs no Postgres read is served');
      t.ok(cached.ms < 1_000, `answered in ${cached.ms} ms`);
    } finally {
      proxy.thaw();
    }
    t.equal(await eventually(server, key, missing, 404), 404, 'served again once Postgres answers');
  });
}
