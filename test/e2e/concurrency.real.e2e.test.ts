/**
 * The concurrency queue across two workers against the real Postgres and Redis (skipped without
 * DATABASE_URL and REDIS_URL): limits are shared by the workers, and when the worker running an
 * execution is killed, its lease lapses, another worker marks the execution FAILED with
 * EXECUTION_INTERRUPTED (webhook included) and its slot goes to the next queued execution.
 * Short leases (BATON_LEASE_MS, BATON_RECOVERY_SCAN_MS) keep the takeover quick.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startMockAgentFleet } from '../fixtures/mock-agent-fleet.js';
import { freshRequest } from '../helpers/raw-http.js';
import { ADMIN_TOKEN, api, createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

/** Polls `check`; a request that fails outright (a kept-alive connection to a killed worker) counts as not yet. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const attempt = async (): Promise<boolean> => {
    try {
      return await check();
    } catch {
      return false;
    }
  };
  while (!(await attempt())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * An agent whose first /execute never answers and whose later ones answer at once; it records
 * the client port of each /execute, which tells which worker process made the call.
 */
async function holdFirstAgent(t: { teardown(fn: () => unknown): void }) {
  const executeFrom: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/health') return json(200, { status: 'healthy', timestamp: Math.floor(Date.now() / 1000) });
      if (req.url === '/info') {
        return json(200, { id: 'holder', name: 'Holder', description: 'Holds its first call', version: '1.0.0', capabilities: ['hold'], pricing: { model: 'per_execution', basePrice: 0.01 } });
      }
      executeFrom.push(req.socket.remotePort ?? 0);
      if (executeFrom.length === 1) return; // hangs until the worker that called dies
      json(200, { result: { answer: 'done' }, metadata: { cost: 0.01, duration: 1 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, executeFrom };
}

/** Collects webhook bodies. */
async function webhookReceiver(t: { teardown(fn: () => unknown): void }) {
  const events: Json[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString()) as Json);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events };
}

/** The process owning the TCP connection whose local port is `port` (from `ss`). */
function pidOfConnection(port: number): number | null {
  const out = execFileSync('ss', ['-tnpH', 'state', 'all', `sport = :${port}`]).toString();
  const match = /pid=(\d+)/.exec(out);
  return match === null ? null : Number(match[1]);
}

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2, env: { BATON_LEASE_MS: '1500', BATON_RECOVERY_SCAN_MS: '250' } });

  function workerPids(): number[] {
    try {
      // Under tsx an esbuild service is also a child of the primary: match the workers only
      // (they run the CLI entry, src/cli/main.ts or its build dist/src/cli/main.js).
      return execFileSync('pgrep', ['-P', String(server.process.pid), '-f', 'src/cli/main\\.[jt]s']).toString().trim().split('\n').map(Number);
    } catch {
      return [];
    }
  }

  async function register(key: string, agent: { id: string; url: string }): Promise<void> {
    const res = await api(server, 'POST', '/v1/agents', {
      key,
      body: { id: agent.id, name: agent.id, description: 'test agent', url: agent.url, vertical: 'testing', capabilities: ['test'], pricing: { model: 'per_execution', basePrice: 0.01 } },
    });
    if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  }

  t.test('the concurrent limit and the queue are shared by both workers', async (t) => {
    const { key } = await createAccountWithKey(server, 'DEVELOPER');
    const fleet = await startMockAgentFleet([{ latencyMs: 5_000 }]);
    t.teardown(() => fleet.close());
    await register(key, { id: 'slow', url: fleet.agent(0).url });
    // One connection per request, so SO_REUSEPORT spreads the submits over both workers.
    const body = JSON.stringify({ query: 'wait', selectionCriteria: { minConfidence: 0, maxAgents: 1 } });
    const answers = await Promise.all(
      Array.from({ length: 26 }, () =>
        freshRequest(server.port, 'POST', '/v1/orchestrate', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body),
      ),
    );
    const parsed = answers.map((a) => ({ status: a.status, body: JSON.parse(a.text) as Json }));
    const accepted = parsed.filter((a) => a.status === 202);
    t.equal(accepted.length, 25, '5 running and 20 queued over both workers');
    const positions = accepted.flatMap((a) => /queued at position (\d+)/.exec(a.body.message as string)?.[1] ?? []).map(Number).sort((a, b) => a - b);
    t.same(positions, Array.from({ length: 20 }, (_, i) => i + 1), 'each queue position given once');
    const refused = parsed.filter((a) => a.status === 429);
    t.equal(refused.length, 1);
    t.equal(refused[0]?.body.error, 'QUEUE_FULL');
  });

  t.test('after the worker running an execution is killed, the execution fails as EXECUTION_INTERRUPTED and its slot goes to the next', async (t) => {
    const account = await api(server, 'POST', '/v1/accounts', {
      key: ADMIN_TOKEN,
      body: { name: 'one slot', tier: 'ENTERPRISE', limits: { requestsPerMinute: 1000, requestsPerDay: 100000, concurrentExecutions: 1, queueSize: 1 } },
    });
    t.equal(account.status, 201);
    const keyRes = await api(server, 'POST', '/v1/api-keys', { key: ADMIN_TOKEN, body: { name: 'k', permissions: ['*'], accountId: account.body.id } });
    const key = keyRes.body.key as string;
    const agent = await holdFirstAgent(t);
    const hooks = await webhookReceiver(t);
    await register(key, { id: 'holder', url: agent.url });
    const request = (query: string) => ({ query, selectionCriteria: { minConfidence: 0, maxAgents: 1 }, webhook: { url: hooks.url } });

    const first = await api(server, 'POST', '/v1/orchestrate', { key, body: request('held') });
    t.equal(first.status, 202);
    const firstId = first.body.executionId as string;
    await until('the agent holds the first call', () => agent.executeFrom.length === 1);
    const second = await api(server, 'POST', '/v1/orchestrate', { key, body: request('next') });
    t.equal(second.status, 202);
    t.match(second.body.message, /queued at position 1\b/);
    t.equal((await api(server, 'POST', '/v1/orchestrate', { key, body: request('too many') })).status, 429, 'one slot and one place are taken');

    const owner = pidOfConnection(agent.executeFrom[0]!);
    t.ok(owner !== null && workerPids().includes(owner), `the caller is a worker (pid ${owner})`);
    process.kill(owner!, 'SIGKILL');

    let failed: Json = {};
    await until('the first execution is FAILED', async () => {
      const res = await api(server, 'GET', `/v1/executions/${firstId}`, { key });
      failed = res.body;
      return res.status === 200 && failed.status !== 'RUNNING';
    });
    t.equal(failed.status, 'FAILED');
    t.equal((failed.error as Json).code, 'EXECUTION_INTERRUPTED');

    const secondId = second.body.executionId as string;
    let next: Json = {};
    await until('the queued execution ran in the reclaimed slot', async () => {
      const res = await api(server, 'GET', `/v1/executions/${secondId}`, { key });
      next = res.body;
      return res.status === 200 && (next.status === 'COMPLETED' || next.status === 'FAILED');
    });
    t.equal(next.status, 'COMPLETED');

    await until('the failure webhook arrived', () => hooks.events.some((e) => e.executionId === firstId && e.event === 'execution.failed'));
    const hook = hooks.events.find((e) => e.executionId === firstId && e.event === 'execution.failed')!;
    t.equal(((hook.data as Json).error as Json).code, 'EXECUTION_INTERRUPTED');
  });
}
