/**
 * Redis briefly unavailable (DESIGN §9): requests that need it answer 503 SERVICE_UNAVAILABLE
 * with Retry-After instead of hanging or crashing, and the service recovers by itself when Redis
 * returns. Uses a private redis-server on a free port that the test stops and restarts; needs
 * DATABASE_URL and the redis-server binary, skipped otherwise.
 */
import t from 'tap';
import { realDatabaseUrl } from '../helpers/env.js';
import { hasRedisServer, startRedis, stopRedis } from '../helpers/redis-server.js';
import { api, createAccountWithKey, freePort, startServer } from '../helpers/server.js';

if (realDatabaseUrl === null || !hasRedisServer()) {
  t.pass('skipped: needs DATABASE_URL and redis-server');
} else {
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  t.teardown(() => stopRedis(redis));
  const server = await startServer(t, { mode: 'real', workers: 1, env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` } });
  const { key } = await createAccountWithKey(server, 'BUSINESS');

  t.test('with Redis down a request is 503 with Retry-After, and works again once Redis is back', async (t) => {
    t.equal((await api(server, 'GET', '/v1/auth/test', { key })).status, 200);
    await stopRedis(redis);
    const down = await api(server, 'GET', '/v1/auth/test', { key });
    t.equal(down.status, 503);
    t.equal(down.body.error, 'SERVICE_UNAVAILABLE');
    t.ok(Number(down.headers.get('retry-after')) >= 1, 'Retry-After header');
    t.equal((await api(server, 'GET', '/health')).status, 200, 'the worker is still alive');

    redis = await startRedis(redisPort);
    const deadline = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await api(server, 'GET', '/v1/auth/test', { key })).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    t.equal(status, 200, 'recovered without a restart');
  });
}
