/**
 * Two workers on the real Postgres and Redis (CI sets DATABASE_URL and REDIS_URL; skipped
 * otherwise): an agent registered, changed or deleted through one worker is seen by every worker
 * on the very next request.
 */
import t from 'tap';
import { startMockAgent } from '../fixtures/mock-agent-fleet.js';
import { freshRequest } from '../helpers/raw-http.js';
import { api, createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const server = await startServer(t, { mode: 'real', workers: 2 });
  const agent = await startMockAgent();
  t.teardown(() => agent.close());

  /** Preview on fresh connections so SO_REUSEPORT spreads them over both workers. */
  async function selectedOnFreshConnections(key: string, query: string, count: number): Promise<Set<string>> {
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const res = await freshRequest(
        server.port,
        'POST',
        '/v1/agents/selection-preview',
        { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        JSON.stringify({ query }),
      );
      const body = JSON.parse(res.text) as { selected?: Array<{ id: string }> };
      seen.add(JSON.stringify((body.selected ?? []).map((s) => s.id)));
    }
    return seen;
  }

  t.test('an agent registered through one worker is selected by every worker at once', async (t) => {
    const { key } = await createAccountWithKey(server, 'ENTERPRISE');
    const query = 'forecast the tides in the harbour';
    t.same(await selectedOnFreshConnections(key, query, 10), new Set(['[]']));
    const created = await api(server, 'POST', '/v1/agents', {
      key,
      body: {
        id: 'tide-oracle',
        name: 'Tide Oracle',
        description: 'Forecasts ocean tides for harbours.',
        url: agent.url,
        vertical: 'marine',
        capabilities: ['tide-forecast'],
        pricing: { model: 'per_execution', basePrice: 0.01 },
      },
    });
    t.equal(created.status, 201);
    t.same(await selectedOnFreshConnections(key, query, 20), new Set(['["tide-oracle"]']));
    t.equal((await api(server, 'DELETE', '/v1/agents/tide-oracle', { key })).status, 200);
    t.same(await selectedOnFreshConnections(key, query, 20), new Set(['[]']));
  });
}
