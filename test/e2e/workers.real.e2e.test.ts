/**
 * Two workers sharing one port, against the real Postgres and Redis (CI sets DATABASE_URL and
 * REDIS_URL; skipped otherwise). A key revoked through one worker is refused by every worker on
 * the very next request, and a worker that crashes is replaced.
 */
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { api, createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';
import { freshRequest } from '../helpers/raw-http.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2 });

  /** Fresh connections so SO_REUSEPORT spreads the requests over both workers. */
  async function statusesOnFreshConnections(key: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await freshRequest(server.port, 'GET', '/v1/auth/test', { authorization: `Bearer ${key}` });
      statuses.push(res.status);
    }
    return statuses;
  }

  t.test('requests are served by both workers', async (t) => {
    const workers = new Set<string>();
    for (let i = 0; i < 60 && workers.size < 2; i++) {
      const res = await freshRequest(server.port, 'GET', '/health');
      t.equal(res.status, 200);
      workers.add(String(res.headers['x-baton-worker']));
    }
    t.equal(workers.size, 2, 'two distinct workers answered');
  });

  t.test('a key deactivated through one worker is refused by every worker at once', async (t) => {
    const admin = await createAccountWithKey(server);
    const other = await api(server, 'POST', '/v1/api-keys', { key: admin.key, body: { name: 'victim', permissions: ['orchestrate'] } });
    const victim = other.body.key as string;
    // Warm both workers' caches so a stale cache would show.
    t.same(new Set(await statusesOnFreshConnections(victim, 20)), new Set([200]));
    const off = await freshRequest(
      server.port,
      'PATCH',
      `/v1/api-keys/${other.body.id}`,
      { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json' },
      JSON.stringify({ isActive: false }),
    );
    t.equal(off.status, 200);
    t.same(new Set(await statusesOnFreshConnections(victim, 20)), new Set([401]));
  });

  t.test('a key deleted through one worker is refused by every worker at once', async (t) => {
    const admin = await createAccountWithKey(server);
    const other = await api(server, 'POST', '/v1/api-keys', { key: admin.key, body: { name: 'gone', permissions: ['orchestrate'] } });
    const victim = other.body.key as string;
    t.same(new Set(await statusesOnFreshConnections(victim, 20)), new Set([200]));
    const del = await freshRequest(server.port, 'DELETE', `/v1/api-keys/${other.body.id}`, { authorization: `Bearer ${admin.key}` });
    t.equal(del.status, 200);
    t.same(new Set(await statusesOnFreshConnections(victim, 20)), new Set([401]));
  });

  function workerPids(): number[] {
    try {
      // Under tsx an esbuild service is also a child of the primary: match the workers only
      // (they run the CLI entry, src/cli/main.ts or its build dist/src/cli/main.js).
      return execFileSync('pgrep', ['-P', String(server.process.pid), '-f', 'src/cli/main\\.[jt]s']).toString().trim().split('\n').map(Number);
    } catch {
      return [];
    }
  }

  t.test('a crashed worker is restarted and the port keeps answering', async (t) => {
    const before = workerPids();
    t.equal(before.length, 2, `worker pids: ${JSON.stringify(before)}`);
    process.kill(before[0]!, 'SIGKILL');
    const deadline = Date.now() + 20_000;
    let after: number[] = [];
    while (Date.now() < deadline) {
      after = workerPids();
      if (after.length === 2 && !after.includes(before[0]!)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(after.length, 2, 'two workers again');
    t.notOk(after.includes(before[0]!), 'the killed worker was replaced');
    const workers = new Set<string>();
    for (let i = 0; i < 200 && workers.size < 2; i++) {
      try {
        const res = await freshRequest(server.port, 'GET', '/health');
        if (res.status === 200) workers.add(String(res.headers['x-baton-worker']));
      } catch {
        // The replacement may still be starting; its share of connections can be refused meanwhile.
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(workers.size, 2, 'both workers answer');
  });
}
