/**
 * A worker that recorded an execution but died before answering leaves its idempotency claim
 * unanswered. The client's retry with the same key must get that one execution: at once while
 * the claim is still held (not 409 for the claim's lifetime), and after the claim lapsed (taken
 * over, and still no second execution). The dead worker's state is made directly in Postgres:
 * the claim row set back to in progress, as the worker left it. Needs DATABASE_URL and REDIS_URL.
 */
import postgres from 'postgres';
import t from 'tap';
import { registerAgents } from '../helpers/agents.js';
import { realDatabaseUrl, uniqueSchema } from '../helpers/env.js';
import { api, createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';
import { dropSchema } from '../helpers/stores.js';

if (!realServersAvailable()) {
  t.pass('skipped: needs DATABASE_URL and REDIS_URL');
} else {
  const schema = uniqueSchema('idem');
  t.teardown(() => dropSchema(schema));
  const server = await startServer(t, { mode: 'real', workers: 1, env: { BATON_DB_SCHEMA: schema } });
  const sql = postgres(realDatabaseUrl!, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
  t.teardown(() => sql.end({ timeout: 5 }));

  const { key } = await createAccountWithKey(server, 'BUSINESS');
  const agents = await registerAgents(
    server,
    key,
    [{ info: { id: 'idem', name: 'Agent idem', description: 'Does idem work', capabilities: ['cap-idem'], pricing: { model: 'per_execution', basePrice: 0.01 } } }],
    t.teardown.bind(t),
  );
  const body = { query: 'only once please', selectionCriteria: { requiredCapabilities: [], minConfidence: 0, maxAgents: 1 } };

  async function submit(idempotencyKey: string) {
    return api(server, 'POST', '/v1/orchestrate', { key, body, headers: { 'x-idempotency-key': idempotencyKey } });
  }

  /** What a worker killed between recording the execution and answering leaves behind. */
  async function forgetAnswer(idempotencyKey: string, claimLeftMs: number): Promise<void> {
    await sql`
      update idempotency_keys set state = 'in_progress', response_status = null, response_body = null,
        expires_at = now() + ${claimLeftMs} * interval '1 millisecond'
      where key = ${idempotencyKey}`;
  }

  t.test('a retry while the dead worker\'s claim is still held gets the recorded execution at once', async (t) => {
    const first = await submit('died-before-answering');
    t.equal(first.status, 202);
    await forgetAnswer('died-before-answering', 30_000);
    const started = Date.now();
    const retry = await submit('died-before-answering');
    t.equal(retry.status, 202, `not 409: ${retry.text}`);
    t.equal(retry.body.executionId, first.body.executionId, 'the one execution');
    t.ok(Date.now() - started < 3_000, 'answered without waiting for the claim to lapse');
  });

  t.test('a retry after the claim lapsed takes it over and still gets the recorded execution', async (t) => {
    const first = await submit('claim-lapsed');
    t.equal(first.status, 202);
    await forgetAnswer('claim-lapsed', -1_000);
    const retry = await submit('claim-lapsed');
    t.equal(retry.status, 202, retry.text);
    t.equal(retry.body.executionId, first.body.executionId, 'no second execution');
    const again = await submit('claim-lapsed');
    t.same(again.body, retry.body, 'the answer is stored again for later retries');
    const rows = await sql<Array<{ count: number }>>`select count(*)::int as count from executions where idempotency_key = 'claim-lapsed'`;
    t.equal(rows[0]?.count, 1);
  });

  t.test('the agent ran once per key', async (t) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    t.equal(agents[0]!.requests.filter((r) => r.path === '/execute').length, 2);
  });
}
