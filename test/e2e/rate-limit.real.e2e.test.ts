/**
 * Rate limits shared by two workers on the real Redis (skipped without DATABASE_URL and
 * REDIS_URL): requests on fresh connections spread over both workers, and the account still
 * gets exactly its 100 requests per minute in all.
 */
import t from 'tap';
import { freshRequest } from '../helpers/raw-http.js';
import { createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2 });

  t.test('two workers together admit exactly one DEVELOPER minute of requests', async (t) => {
    const { key } = await createAccountWithKey(server, 'DEVELOPER');
    const intoMinuteMs = Date.now() % 60_000;
    if (intoMinuteMs > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinuteMs + 200));
    const statuses: number[] = [];
    const remaining = new Set<string>();
    for (let i = 0; i < 140; i++) {
      const res = await freshRequest(server.port, 'GET', '/v1/auth/test', { authorization: `Bearer ${key}` });
      statuses.push(res.status);
      if (res.status === 200) remaining.add(String(res.headers['x-ratelimit-remaining']));
    }
    t.equal(statuses.filter((s) => s === 200).length, 100, '100 admitted across both workers');
    t.same(statuses.slice(100), Array.from({ length: 40 }, () => 429), 'everything after them refused');
    t.equal(remaining.size, 100, 'each admitted request saw its own remaining count');
  });

  t.test('both workers answered during the run', async (t) => {
    const workers = new Set<string>();
    for (let i = 0; i < 60 && workers.size < 2; i++) {
      workers.add(String((await freshRequest(server.port, 'GET', '/health')).headers['x-baton-worker']));
    }
    t.equal(workers.size, 2);
  });
}
