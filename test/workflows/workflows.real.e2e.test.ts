/**
 * Workflows across two workers on the real Postgres and Redis (skipped without DATABASE_URL and
 * REDIS_URL): a decision sent to the worker that does not own the run is applied by its owner,
 * and any worker serves the run's stream from the Redis Stream.
 */
import t from 'tap';
import { freshRequest } from '../helpers/raw-http.js';
import { realServersAvailable, startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { setupWorkflow, startToolServer, waitForStatus } from './fixtures.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2 });
  const tools = await startToolServer();
  t.teardown(() => tools.close());

  t.test('decisions through any worker are applied by the run owner, and any worker streams the run', async (t) => {
    const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // Runs and decisions each on a fresh connection: SO_REUSEPORT spreads them over both workers,
    // so with 8 runs some decision lands on the worker that does not own its run (1 in 256 that
    // none does); every one must be applied all the same.
    const runs: Array<{ id: string; approvalId: string }> = [];
    for (let i = 0; i < 8; i++) {
      const run = await freshRequest(server.port, 'POST', `/v1/workflows/${slug}/run`, auth, JSON.stringify({ task: `go ${i}` }));
      t.equal(run.status, 200);
      const id = (JSON.parse(run.text) as { execution_id: string }).execution_id;
      const sse = openSse(server.port, `/api/v1/workflows/execute/${id}/stream`, key);
      await sse.waitFor((events) => events.length >= 1);
      runs.push({ id, approvalId: sse.events[0]!.data.approval_id as string });
      sse.close();
    }
    for (const run of runs) {
      const decided = await freshRequest(server.port, 'POST', `/v1/workflows/execute/${run.id}/approve/${run.approvalId}`, auth, JSON.stringify({ reason: 'ok' }));
      t.equal(decided.status, 200);
    }
    for (const run of runs) {
      const done = await waitForStatus(server, key, run.id, ['completed', 'failed']);
      t.equal(done.status, 'completed');
    }
    // Any worker replays the whole stream of any run (Redis Streams), ending after done.
    for (const run of runs) {
      const replay = await freshRequest(server.port, 'GET', `/api/v1/workflows/execute/${run.id}/stream`, { authorization: `Bearer ${key}` });
      const events = [...replay.text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
      t.same(events, ['approval_request', 'approval_resolved', 'tool_executing', 'tool_result', 'chunk', 'done']);
      t.same([...replay.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), [1, 2, 3, 4, 5, 6]);
    }
  });
}
