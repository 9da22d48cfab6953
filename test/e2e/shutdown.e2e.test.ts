/**
 * Graceful shutdown (DESIGN §5): SIGTERM lets a running execution finish before the worker
 * exits; the result is there when the service comes back on the same data directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startMockAgentFleet } from '../fixtures/mock-agent-fleet.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

t.test('an execution running at SIGTERM completes before the worker exits', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-drain-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const fleet = await startMockAgentFleet([
    { info: { id: 'slowpoke', name: 'slowpoke', description: 'takes its time', capabilities: ['slow'], pricing: { model: 'per_execution', basePrice: 0.01 } }, latencyMs: 1_500, output: { finished: true } },
  ]);
  t.teardown(() => fleet.close());
  const first = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const { key } = await createAccountWithKey(first, 'BUSINESS');
  const agent = fleet.agents[0]!;
  const reg = await api(first, 'POST', '/v1/agents', {
    key,
    body: { id: 'slowpoke', name: 'slowpoke', description: 'takes its time', url: agent.url, vertical: 'test', capabilities: ['slow'], pricing: { model: 'per_execution', basePrice: 0.01 } },
  });
  t.equal(reg.status, 201);
  const res = await api(first, 'POST', '/v1/orchestrate', { key, body: { query: 'slow', selectionCriteria: { requiredCapabilities: ['slow'], minConfidence: 0 } } });
  t.equal(res.status, 202);
  await new Promise((r) => setTimeout(r, 300));
  await first.stop();
  t.equal(agent.requests.filter((r) => r.path === '/execute').length, 1);

  const second = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const read = await api(second, 'GET', `/v1/executions/${res.body.executionId as string}`, { key });
  t.equal(read.body.status, 'COMPLETED', 'finished during the drain, not interrupted');
  t.match(read.body.result, { details: { slowpoke: { finished: true } } });
});
